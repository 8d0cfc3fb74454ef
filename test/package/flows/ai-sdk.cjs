// omnimedia/ai-sdk through require(): the CJS build requires 'omnimedia' by its own name.
const { generateImage, experimental_generateVideo: generateVideo } = require('ai');
const omnimedia = require('omnimedia');
const { createOmniMedia } = require('omnimedia/ai-sdk');

(async () => {
  const { runAiSdkFlow } = await import('./ai-sdk-flow.mjs');
  console.log(await runAiSdkFlow({ omnimedia, createOmniMedia, generateImage, generateVideo }, process.env.OMNIMEDIA_BASE_URL, `node ${process.version} cjs`));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
