// A page of a browser app whose server mounts `omnimedia/proxy` (proxy-server.mjs): the whole
// client, `new OmniMedia({ proxyURL: '/api/omnimedia' })`, no key, the session cookie sent by
// the browser; then the AI SDK provider on the same proxy, `createOmniMedia({ proxyURL })`,
// driven by the real `ai` package. Bundled by esbuild (platform browser) from the consumer
// project; window.proxyFlow() runs it.
import { experimental_generateVideo as generateVideo, generateImage } from 'ai';
import { OmniMedia, ValidationError } from 'omnimedia';
import { createOmniMedia } from 'omnimedia/ai-sdk';

// A valid 1x1 PNG: the SDK (and the proxy) sniff the first bytes, so the type must be real.
const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);
const WAIT = { initialDelay: 0, interval: 100, maxInterval: 200, timeout: 30_000 };

window.proxyFlow = async () => {
  const report = {};
  // Both set: a clear error, before anything.
  try {
    new OmniMedia({ proxyURL: '/api/omnimedia', apiKey: 'sk-page' });
    report.bothSet = 'no error';
  } catch (error) {
    report.bothSet = error instanceof ValidationError ? error.issues.map((i) => i.path).join(',') : String(error);
  }

  const client = new OmniMedia({ proxyURL: '/api/omnimedia' });
  report.baseURL = client.baseURL;
  // A File the user picked, auto-uploaded through the proxy, then the video, to its end.
  const file = new File([PNG], 'pixel.png', { type: 'image/png' });
  const video = await client.videos.generate({ prompt: 'the pixel comes alive', images: [file], seconds: 4 }).wait(WAIT);
  report.video = { status: video.status, model: video.normalized_model };
  const image = await client.images.generate({ model: 'omni-image', prompt: 'a lighthouse' }).wait(WAIT);
  report.image = { status: image.status, outputs: image.data?.length };
  // Local validation still throws first.
  report.validation = await client.images.generate({ model: 'omni-image', prompt: 'x', size: '1000x1000' }).then(
    () => 'no error',
    (error) => (error instanceof ValidationError ? 'ValidationError' : String(error)),
  );

  // The AI SDK provider through the same proxy: keyless, file data auto-uploaded through it,
  // the results downloaded as bytes (from the service's file URLs, as any result).
  globalThis.AI_SDK_LOG_WARNINGS = false;
  const omni = createOmniMedia({ proxyURL: '/api/omnimedia' });
  const edited = await generateImage({ model: omni.image('omni-image'), prompt: { text: 'make it night', images: [PNG] }, size: '1024x1024' });
  report.aiImage = { images: edited.images.length, mediaType: edited.images[0]?.mediaType, keyless: !omni.client.hasApiKey };
  const animated = await generateVideo({ model: omni.video('omni_flash'), prompt: { image: PNG, text: 'the pixel runs' }, duration: 4, poll: { intervalMs: 200 } });
  report.aiVideo = {
    mp4: new TextDecoder().decode(animated.video.uint8Array.subarray(4, 8)) === 'ftyp',
    model: animated.providerMetadata.omnimedia.normalized_model,
  };
  report.cookieVisible = document.cookie;
  report.userAgent = navigator.userAgent;
  return report;
};
