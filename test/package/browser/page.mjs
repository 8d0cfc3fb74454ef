// The browser page's script, bundled by esbuild (platform browser) from a consumer project that
// installed the packed tarball. window.omnimediaFlow(baseURL) runs against the mock service,
// cross-origin, so CORS is exercised for real.
import { OmniMedia, OmniMediaError } from 'omnimedia';

// A valid 1x1 PNG: the SDK sniffs the first bytes, so the type must be real.
const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

window.omnimediaFlow = async (baseURL) => {
  const report = {};

  // 1. A key without the opt-in: the documented error, before any request.
  try {
    new OmniMedia({ baseURL, apiKey: 'sk-browser' });
    report.guard = 'no error';
  } catch (error) {
    report.guard = error instanceof OmniMediaError && /dangerouslyAllowBrowser/.test(error.message) ? 'threw' : String(error);
  }

  // 2. With the opt-in: upload a File (with progress when the SDK reports it), then edit it.
  const withKey = new OmniMedia({ baseURL, apiKey: 'sk-browser', dangerouslyAllowBrowser: true });
  const file = new File([PNG], 'pixel.png', { type: 'image/png' });
  let progressEvents = 0;
  const upload = await withKey.uploads.image(file, { onProgress: () => progressEvents++ });
  report.uploadUrl = upload.url;
  report.progressEvents = progressEvents;
  const edit = await withKey.images.edit({ model: 'omni-image', prompt: 'make it night', image: upload });
  report.taskId = edit.task_id;

  // 3. A keyless client polls that task to completion, no opt-in needed.
  const keyless = new OmniMedia({ baseURL });
  const seen = [];
  const done = await keyless.tasks.wait(edit.task_id, {
    initialDelay: 0,
    interval: 50,
    maxInterval: 200,
    timeout: 30_000,
    onProgress: (task) => seen.push(task.status),
  });
  report.status = done.status;
  report.polls = seen.length;
  report.userAgent = navigator.userAgent;
  return report;
};
