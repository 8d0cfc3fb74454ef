/**
 * Who may talk to the studio: a server on 127.0.0.1 that holds an API key is a target for every
 * website its user visits (DESIGN 15). Checked in this order, before anything else runs:
 *
 * 1. `Host` is `127.0.0.1:<port>` or `localhost:<port>`, else 421: a DNS-rebinding page reaches
 *    the port under its own name, and the name is in `Host`.
 * 2. `Origin`, when sent, is the studio's own, and `Sec-Fetch-Site`, when sent, is `same-origin`
 *    or `none` (the user opened the URL), else 403: another site's page (CSRF), another local
 *    port's page included.
 * 3. The token: the cookie the URL's token set (`HttpOnly`, `SameSite=Strict`, named after the
 *    port: cookies are shared by every port of a host), or `Authorization: Bearer <token>`,
 *    else 401. Compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** A refusal: the status and the line the caller reads. */
export interface Refusal {
  status: 401 | 403 | 421;
  message: string;
}

/** A new token: 32 random bytes, hex (unguessable; it is the studio's only credential). */
export const newToken = (): string => randomBytes(32).toString('hex');

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The checks of one studio on `port` with `token`. */
export class StudioGuard {
  readonly #expected: Buffer;
  readonly #port: () => number;

  constructor(token: string, port: () => number) {
    this.#expected = digest(token);
    this.#port = port;
  }

  /** The cookie that carries the token, named after the port. */
  get cookieName(): string {
    return `omnimedia_studio_${this.#port()}`;
  }

  /** The `Set-Cookie` of a first visit with the URL's token. */
  cookie(token: string): string {
    return `${this.cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`;
  }

  /** Whether `given` is the token. */
  isToken(given: string | undefined): boolean {
    return given !== undefined && given !== '' && timingSafeEqual(digest(given), this.#expected);
  }

  /** The origins the studio is served on. */
  origins(): string[] {
    return [`http://127.0.0.1:${this.#port()}`, `http://localhost:${this.#port()}`];
  }

  /** Steps 1 and 2: the request comes to this studio by its own name, from its own page. */
  site(headers: IncomingHttpHeaders): Refusal | undefined {
    const host = headers.host ?? '';
    if (!this.origins().some((origin) => origin === `http://${host}`))
      return { status: 421, message: 'Misdirected request: the studio answers only as 127.0.0.1 or localhost on its own port' };
    const origin = headers.origin;
    if (origin !== undefined && !this.origins().includes(origin)) return { status: 403, message: 'Forbidden: a cross-site request (Origin)' };
    const site = headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return { status: 403, message: `Forbidden: a cross-site request (Sec-Fetch-Site: ${site})` };
    return undefined;
  }

  /** Step 3: the request carries the token (its cookie, or a bearer token). */
  credential(headers: IncomingHttpHeaders): Refusal | undefined {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
    if (this.isToken(bearer)) return undefined;
    const name = this.cookieName;
    const cookie = (headers.cookie ?? '')
      .split(';')
      .map((part) => part.trim())
      .find((part) => part.startsWith(`${name}=`));
    if (this.isToken(cookie?.slice(name.length + 1))) return undefined;
    return { status: 401, message: 'Unauthorized: open the URL the studio printed (it carries the token)' };
  }
}
