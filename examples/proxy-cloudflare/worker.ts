// A Cloudflare Worker serving the proxy at /api/omnimedia (your app's other routes beside it):
// `wrangler deploy` with wrangler.jsonc, the key set with `wrangler secret put OMNIMEDIA_API_KEY`.
// No nodejs_compat needed. The page then uses `new OmniMedia({ proxyURL: '/api/omnimedia' })`.
// (test/proxy/workerd.test.ts runs this file in workerd, through Miniflare.)
import { createProxy, type OmniMediaProxy } from 'omnimedia/proxy';

/** The Worker's bindings (wrangler.jsonc's vars, and its secrets). */
interface Env {
  OMNIMEDIA_API_KEY: string;
  OMNIMEDIA_BASE_URL: string;
  /** The demo's one session (your app's own sign-in replaces it). */
  DEMO_SESSION?: string;
}

// Your app's session lookup (a session store in KV or D1, a JWT...): who asks, or null.
function sessionUser(request: Request, env: Env): { id: string } | null {
  const token = /(?:^|;\s*)session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  return env.DEMO_SESSION && token === env.DEMO_SESSION ? { id: 'demo-user' } : null;
}

// A Worker gets its secrets with each request (env), not in process.env: the proxy is made at
// the first request, and kept for the isolate's next ones.
let proxy: OmniMediaProxy | undefined;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    proxy ??= createProxy({
      apiKey: env.OMNIMEDIA_API_KEY,
      baseURL: env.OMNIMEDIA_BASE_URL,
      basePath: '/api/omnimedia',
      authorize: (request) => sessionUser(request, env),
    });
    if (new URL(request.url).pathname.startsWith('/api/omnimedia/')) return proxy.handler(request);
    return new Response('your app', { headers: { 'content-type': 'text/plain' } });
  },
};
