// The page of docs/browser-apps.md's dev-server recipe: served by a dev server on one origin
// (Vite on :5173 in the guide), it calls the proxy on another (:3000) with the recipe's `fetch`
// that sends the cookies. Bundled by esbuild (platform browser) from the consumer project.
import { OmniMedia } from 'omnimedia';

const WAIT = { initialDelay: 0, interval: 50, maxInterval: 200, timeout: 30_000 };

window.devServerFlow = async (proxyURL) => {
  const recipe = new OmniMedia({ proxyURL, fetch: (input, init) => fetch(input, { ...init, credentials: 'include' }) });
  const task = await recipe.images.generate({ model: 'omni-image', prompt: 'a lighthouse at dawn' }).wait(WAIT);
  // Without the recipe's fetch the browser sends no cookie to the other origin: the proxy says 401.
  const plain = new OmniMedia({ proxyURL });
  const without = await plain.images.generate({ model: 'omni-image', prompt: 'a lighthouse' }).then(
    () => 'accepted',
    (error) => `${error.constructor.name} ${error.status}`,
  );
  return { status: task.status, without };
};
