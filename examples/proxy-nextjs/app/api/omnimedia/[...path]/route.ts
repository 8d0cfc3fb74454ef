// app/api/omnimedia/[...path]/route.ts: the proxy as a Next.js App Router route handler. The
// key and base URL come from OMNIMEDIA_API_KEY and OMNIMEDIA_BASE_URL when the first request is
// forwarded, so `next build` needs neither. The page then uses `new OmniMedia({ proxyURL:
// '/api/omnimedia' })` (app/page.tsx); the key stays on the server.
import { createProxy } from 'omnimedia/proxy';
import { sessionUser } from '@/lib/session';

// The Node.js runtime (Next's default, and its recommendation). `export const runtime = 'edge'`
// works the same, but Next 16 deprecates its edge runtime.
export const runtime = 'nodejs';

const proxy = createProxy({ basePath: '/api/omnimedia', authorize: sessionUser });
export const GET = proxy.handler, POST = proxy.handler, OPTIONS = proxy.handler;
