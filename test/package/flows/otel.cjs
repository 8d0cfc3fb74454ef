// omnimedia/otel from require(): the CJS build of the subpath, with the app's @opentelemetry/api.
const api = require('@opentelemetry/api');
const sdk = require('@opentelemetry/sdk-trace');
const { OmniMedia } = require('omnimedia');
const { openTelemetry } = require('omnimedia/otel');

(async () => {
  const { runOtelFlow } = await import('./otel-flow.mjs');
  const baseURL = process.argv[2] ?? process.env.OMNIMEDIA_BASE_URL;
  console.log(await runOtelFlow({ OmniMedia, openTelemetry, api, sdk, baseURL, runtime: `node ${process.version} cjs` }));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
