// A page of a browser app whose server mounts `omnimedia/proxy` (proxy-server.mjs): the whole
// client, `new OmniMedia({ proxyURL: '/api/omnimedia' })`, no key, the session cookie sent by
// the browser. Bundled by esbuild (platform browser) from the consumer project;
// window.proxyFlow() runs it.
import { OmniMedia, ValidationError } from 'omnimedia';

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
  report.cookieVisible = document.cookie;
  report.userAgent = navigator.userAgent;
  return report;
};
