// app/api/omnimedia/[...path]/route.ts: the proxy as a Next.js App Router route handler. The
// page then uses `new OmniMedia({ proxyURL: '/api/omnimedia' })`; the key stays on the server.
// (examples/proxy-nextjs.ts runs this very file the way Next.js calls it.)
import { createProxy } from 'omnimedia/proxy';

// Your app's session lookup (next-auth's auth(), iron-session, a database...). Here: a cookie.
async function sessionUser(request: Request): Promise<{ id: string } | null> {
  const token = /(?:^|;\s*)session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  return token === 'demo-session' ? { id: 'demo-user' } : null;
}

const proxy = createProxy({ basePath: '/api/omnimedia', authorize: sessionUser });
export const GET = proxy.handler, POST = proxy.handler, OPTIONS = proxy.handler;
