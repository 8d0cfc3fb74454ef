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

/** The first element's `host=` of a `Forwarded` header (RFC 7239), unquoted. */
function forwardedHost(value: string | null): string | undefined {
  const first = value?.split(',')[0] ?? '';
  const match = /(?:^|;)\s*host=(?:"([^"]*)"|([^;\s]*))/i.exec(first);
  return match?.[1] ?? match?.[2] ?? undefined;
}

/**
 * The host the request was sent to, as the browser named it: its `Host` header; behind a
 * reverse proxy you run (`trustProxy`), the first `X-Forwarded-Host`, else `Forwarded`'s
 * `host=`, when one came. Never the host of the runtime's `request.url`: frameworks rewrite it
 * (Next.js hands route handlers `http://localhost:<port>/...` whatever the browser asked for).
 */
export function requestHost(headers: Headers, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const forwarded = headers.get('x-forwarded-host')?.split(',')[0]?.trim() || forwardedHost(headers.get('forwarded'));
    if (forwarded) return forwarded;
  }
  return headers.get('host') ?? undefined;
}

/**
 * The browser's own word decides first: `Sec-Fetch-Site` (which a page cannot set) says
 * `same-origin`, or an `Origin` is listed. Without `Sec-Fetch-Site` (older browsers), an
 * `Origin` whose host is the request's own (`ownHost`, see `requestHost`) counts as the page's
 * own origin (compared by host, that host read with the Origin's scheme: a TLS terminator in
 * front hides the scheme). Without either header it is not a browser (nothing of a visitor's
 * to protect), or a plain navigation GET.
 */
export function checkOrigin(headers: Headers, method: string, ownHost: string | undefined, allowed: ReadonlySet<string>): OriginVerdict {
  const origin = headers.get('origin');
  const site = headers.get('sec-fetch-site');
  if (origin !== null) {
    if (origin !== 'null' && allowed.has(origin)) return { allowed: true, corsOrigin: origin };
    if (site === 'same-origin') return { allowed: true, corsOrigin: undefined };
    if (site === null && ownHost !== undefined && isOwnOrigin(origin, ownHost)) return { allowed: true, corsOrigin: undefined };
    return { allowed: false, reason: `a request from ${origin === 'null' ? 'an opaque origin' : origin}, which is not an allowed origin` };
  }
  if (site === null || site === 'same-origin' || (site === 'none' && method === 'GET')) return { allowed: true, corsOrigin: undefined };
  return { allowed: false, reason: `a ${site} request without an Origin header` };
}

/** An `Origin` whose host is `host` (a Host header), as a URL of the origin's scheme writes it. */
function isOwnOrigin(origin: string, host: string): boolean {
  const page = normalizeOrigin(origin);
  return page !== undefined && hostOf(host, new URL(page).protocol === 'https:' ? 'https:' : 'http:') === new URL(page).host;
}

/**
 * A Host header as a URL of that scheme writes its host (lower case, no default port);
 * `undefined` when it is not a host and port (a path, a user name, a space: nothing a URL parser
 * would read past).
 */
export function hostOf(host: string, scheme: 'http:' | 'https:'): string | undefined {
  if (!/^(?:[A-Za-z0-9._~!$&'()*+,;=-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(host) || !URL.canParse(`${scheme}//${host}`)) return undefined;
  return new URL(`${scheme}//${host}`).host;
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
