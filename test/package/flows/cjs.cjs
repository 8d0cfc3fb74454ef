// CommonJS consumer: require('omnimedia') must work on every Node >= 22.0 (22.0-22.11 cannot
// require() an ES module, which is why the CJS build carries ky and p-retry).
const omnimedia = require('omnimedia');
const testing = require('omnimedia/testing');
const schemas = require('omnimedia/schemas');
const proxyEntry = require('omnimedia/proxy');
const coordination = require('omnimedia/coordination');

// The types say `export { OmniMedia as default }`: the CJS build must carry that default too.
if (omnimedia.default !== omnimedia.OmniMedia) throw new Error("require('omnimedia').default is not OmniMedia");
if (typeof schemas.TaskResultSchema?._zod !== 'object') throw new Error("require('omnimedia/schemas') has no TaskResultSchema");

if (typeof coordination.MemoryDedupeStore !== 'function') throw new Error("require('omnimedia/coordination') has no MemoryDedupeStore");
require('omnimedia/resources'); // types only, but it resolves

if (typeof testing.startMockServer !== 'function') throw new Error("require('omnimedia/testing') has no startMockServer");
// The MSW adapter resolves too (loading it needs msw, an optional peer this project lacks).
require.resolve('omnimedia/testing/msw');

(async () => {
  const { runFlow, runProxyFlow } = await import('./flow.mjs');
  const baseURL = process.argv[2] ?? process.env.OMNIMEDIA_BASE_URL;
  console.log(await runFlow(omnimedia, baseURL, `node ${process.version} cjs`));
  console.log(await runProxyFlow(omnimedia, proxyEntry, baseURL, `node ${process.version} cjs`));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
