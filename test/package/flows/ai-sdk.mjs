// omnimedia/ai-sdk from the installed tarball, with the real `ai` package (ESM; the CJS flow
// runs the same checks through require). The provider imports 'omnimedia' by its own name:
// this is where that self-reference must resolve, to the app's very classes.
import { generateImage, experimental_generateVideo as generateVideo } from 'ai';
import * as omnimedia from 'omnimedia';
import { createOmniMedia } from 'omnimedia/ai-sdk';
import { runAiSdkFlow } from './ai-sdk-flow.mjs';

console.log(await runAiSdkFlow({ omnimedia, createOmniMedia, generateImage, generateVideo }, process.env.OMNIMEDIA_BASE_URL, `node ${process.version} esm`));
