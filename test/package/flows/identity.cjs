// The cross-entry identity checks (identity-flow.mjs) with every entry loaded by require().
const entries = {
  omnimedia: require('omnimedia'),
  tasks: require('omnimedia/tasks'),
  redis: require('omnimedia/redis'),
  otel: require('omnimedia/otel'),
  proxy: require('omnimedia/proxy'),
  aiSdk: require('omnimedia/ai-sdk'),
};

(async () => {
  const { checkIdentity } = await import('./identity-flow.mjs');
  const baseURL = process.argv[2] ?? process.env.OMNIMEDIA_BASE_URL;
  console.log(await checkIdentity(entries, baseURL, `node ${process.version} cjs`));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
