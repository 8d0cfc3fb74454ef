/**
 * Who may call the proxy from a browser: the page's own origin, and the origins the app lists
 * (`allowedOrigins`). Cross-site requests carry the visitor's cookies, so a request another
 * site made the browser send (CSRF) is refused before `authorize` reads those cookies.
 */

/** What the origin check decided: allowed (with the origin to echo in CORS headers), or why not. */
export type OriginVerdict = { allowed: true; corsOrigin: string | undefined } | { allowed: false; reason: string };

/** `https://app.example.com` from a listed origin (any path or trailing slash dropped); `undefined` when it is not one. */
export function normalizeOrigin(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  return /^https?:$/.test(url.protocol) && url.origin !== 'null' ? url.origin : undefined;
}

/**
 * The browser's own word decides first: `Sec-Fetch-Site` (which a page cannot set) says
 * `same-origin`, or an `Origin` is listed. Without `Sec-Fetch-Site` (older browsers), an
 * `Origin` on the request's own host counts as the page's own origin (compared by host: a TLS
 * terminator in front hides the scheme). Without either header it is not a browser (nothing of
 * a visitor's to protect), or a plain navigation GET.
 */
export function checkOrigin(headers: Headers, method: string, ownHost: string, allowed: ReadonlySet<string>): OriginVerdict {
  const origin = headers.get('origin');
  const site = headers.get('sec-fetch-site');
  if (origin !== null) {
    if (origin !== 'null' && allowed.has(origin)) return { allowed: true, corsOrigin: origin };
    if (site === 'same-origin') return { allowed: true, corsOrigin: undefined };
    if (site === null && origin !== 'null' && URL.canParse(origin) && new URL(origin).host === ownHost) return { allowed: true, corsOrigin: undefined };
    return { allowed: false, reason: `a request from ${origin === 'null' ? 'an opaque origin' : origin}, which is not an allowed origin` };
  }
  if (site === null || site === 'same-origin' || (site === 'none' && method === 'GET')) return { allowed: true, corsOrigin: undefined };
  return { allowed: false, reason: `a ${site} request without an Origin header` };
}

/** A Host header as a URL of that scheme writes its host (lower case, no default port); `undefined` when it is not one. */
export function hostOf(host: string, scheme: 'http:' | 'https:'): string | undefined {
  return URL.canParse(`${scheme}//${host}`) ? new URL(`${scheme}//${host}`).host : undefined;
}

/** The CORS headers of an answer to an allowed cross-origin page: its own origin, never `*`. */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  return origin ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', 'access-control-expose-headers': 'retry-after, x-request-id' } : {};
}

/**
 * The headers a preflight may ask for, echoed only when they are a plain list of header names
 * (nothing the page sends beyond the body's type reaches the service anyway).
 */
export function preflightHeaders(origin: string, requested: string | null): Record<string, string> {
  const headers: Record<string, string> = {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-allow-methods': 'GET, POST',
    'access-control-max-age': '600',
  };
  if (requested && /^[\w-]+(?:\s*,\s*[\w-]+)*$/.test(requested.trim())) headers['access-control-allow-headers'] = requested.trim();
  return headers;
}
