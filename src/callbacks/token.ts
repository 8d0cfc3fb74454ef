import { CALLBACK_TOKEN_PARAM } from '../internal/redact.ts';

export { CALLBACK_TOKEN_PARAM };

// Task-independent on purpose: the callback_url is built before the task (and its id) exists.
const TOKEN_LABEL = 'omnimedia callback token v1';

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The token for one secret: HMAC-SHA-256(secret, label), base64url. Derived rather than the
 * secret itself so the secret never travels: the URL is stored and logged by the service and
 * by every proxy on the way back, and a leaked URL then gives away a token that only opens
 * this door, never a secret that may be reused elsewhere.
 */
async function deriveToken(secret: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return base64url(new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(TOKEN_LABEL))));
}

/** Compare without an early exit, so the time taken does not tell how much of a guess matched. */
function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  // The loop runs over the expected token's length, whatever the guess's length.
  for (let i = 0; i < y.length; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * The `callbackSecret` of a client: the first secret makes the token of every new
 * `callback_url`; every secret's token is accepted on delivery, so a secret can be rotated
 * while tasks submitted under the old one are still running.
 */
export class CallbackTokens {
  readonly #tokens: Promise<string[]>;

  /**
   * `secrets`: checked by `resolveClientOptions`, the newest first. `learn`: told each token
   * once derived (the client's redactor, so no log line or error shows one).
   */
  constructor(secrets: string | readonly string[], learn?: (token: string) => void) {
    this.#tokens = Promise.all((typeof secrets === 'string' ? [secrets] : secrets).map(deriveToken));
    if (learn) void this.#tokens.then((tokens) => tokens.forEach(learn), () => {});
    // Surfaced by the first use; not an unhandled rejection at construction.
    this.#tokens.catch(() => {});
  }

  /** `url` with the current token in its query; the caller's own parameters and fragment stay as they were. */
  async addTo(url: string): Promise<string> {
    const [current] = await this.#tokens;
    const parsed = new URL(url);
    const kept = parsed.search
      .slice(1)
      .split('&')
      .filter((pair) => pair !== '' && pair.split('=')[0] !== CALLBACK_TOKEN_PARAM);
    parsed.search = [...kept, `${CALLBACK_TOKEN_PARAM}=${current}`].join('&');
    return parsed.href;
  }

  /** Whether the delivery's URL (absolute, or a path with its query) carries a token of one of the secrets. */
  async accepts(url: string | undefined): Promise<boolean> {
    if (url === undefined) return false;
    let given: string[];
    try {
      given = new URL(url, 'http://callback.invalid').searchParams.getAll(CALLBACK_TOKEN_PARAM);
    } catch {
      return false;
    }
    if (given.length !== 1) return false;
    const tokens = await this.#tokens;
    // Check every secret (no early return), so timing does not tell which one is in use.
    let ok = false;
    for (const token of tokens) ok = constantTimeEqual(given[0]!, token) || ok;
    return ok;
  }
}
