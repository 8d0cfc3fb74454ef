import { BoundedMap } from '../internal/bounded-map.ts';

import { CALLBACK_TOKEN_PARAM } from '../internal/redact.ts';

export { CALLBACK_TOKEN_PARAM };

/** Labels of the two token forms (HMAC messages), so a token of one form never passes as the other. */
const LEGACY_LABEL = 'omnimedia callback token v1';
const TOKEN_LABEL = 'omnimedia callback token v2\n';
/** Tokens made here whose proofs are kept for their deliveries (the oldest forgotten first; they are then checked with crypto). */
const MADE_KEPT = 10_000;
/** A nonce: 16 random bytes, base64url (what `mint` makes; a delivery's is checked against it). */
const NONCE = /^[A-Za-z0-9_-]{22}$/;

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const encoder = new TextEncoder();

async function macKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

async function mac(key: CryptoKey, message: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message))));
}

/** Compare without an early exit, so the time taken does not tell how much of a guess matched. */
function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  // The loop runs over the expected token's length, whatever the guess's length.
  for (let i = 0; i < y.length; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * What a delivery's token says: not one of ours (`false`), or ours, with the nonce it was made
 * with (`undefined` for a token of the first form, made for no submission in particular).
 */
export type TokenCheck = false | { nonce: string | undefined };

/**
 * The `callbackSecret` of a client. Each submission's `callback_url` gets a token of its own,
 * `<nonce>.<HMAC-SHA-256(secret, label + nonce)>` (base64url): a fresh nonce, and a MAC that only
 * a holder of the secret can make for it. The URL is built before the task (and its id) exists,
 * so the token binds to the task through the journal, which keeps the nonce beside the task id:
 * a delivery carrying task A's token is trusted as it is for task A only. Derived, never the
 * secret itself: the URL is stored and logged by the service and every proxy on the way back.
 * The first secret makes new tokens; every listed secret's are accepted (rotation), and so are
 * tokens of the first form (one per secret, `HMAC(secret, label)`), made before tokens were
 * per submission.
 */
export class CallbackTokens {
  readonly #keys: Promise<CryptoKey[]>;
  readonly #legacy: Promise<string[]>;
  /** The next token, made ahead: a submission takes one already made (crypto.subtle answers on another turn). */
  #next: Promise<{ nonce: string; proof: string }>;
  /** The proofs of the tokens made here lately, by nonce: their deliveries are checked without crypto. */
  readonly #made = new BoundedMap<string, string>(MADE_KEPT);

  /**
   * `secrets`: checked by `resolveClientOptions`, the newest first. `learn`: told each token of
   * the first form once derived (the client's redactor: one per secret). A per-submission token
   * only ever travels as the `omnimedia_token` parameter, which the redactor hides by name.
   */
  constructor(secrets: string | readonly string[], learn?: (token: string) => void) {
    this.#keys = Promise.all((typeof secrets === 'string' ? [secrets] : secrets).map(macKey));
    this.#legacy = this.#keys.then((keys) => Promise.all(keys.map((key) => mac(key, LEGACY_LABEL))));
    if (learn) void this.#legacy.then((tokens) => tokens.forEach(learn), () => {});
    this.#next = this.#make();
    // Surfaced by the first use; not an unhandled rejection at construction.
    this.#legacy.catch(() => {});
    this.#next.catch(() => {});
  }

  async #make(): Promise<{ nonce: string; proof: string }> {
    const [current] = await this.#keys;
    const nonce = base64url(crypto.getRandomValues(new Uint8Array(16)));
    return { nonce, proof: await mac(current as CryptoKey, TOKEN_LABEL + nonce) };
  }

  /**
   * `url` with a new token in its query (the caller's own parameters and fragment stay as they
   * were), and the token's nonce, for the journal entry of the submission it goes with.
   */
  async mint(url: string): Promise<{ url: string; nonce: string }> {
    // Taken before any await: two submissions at once never share a token.
    const made = this.#next;
    this.#next = this.#make();
    this.#next.catch(() => {});
    const { nonce, proof } = await made;
    this.#made.set(nonce, proof);
    const token = `${nonce}.${proof}`;
    const parsed = new URL(url);
    const kept = parsed.search
      .slice(1)
      .split('&')
      .filter((pair) => pair !== '' && pair.split('=')[0] !== CALLBACK_TOKEN_PARAM);
    parsed.search = [...kept, `${CALLBACK_TOKEN_PARAM}=${token}`].join('&');
    return { url: parsed.href, nonce };
  }

  /** `url` with a new token in its query, bound to no submission (`callbacks.url`). */
  async addTo(url: string): Promise<string> {
    return (await this.mint(url)).url;
  }

  /** What the delivery's URL (absolute, or a path with its query) carries: a token of one of the secrets, or not. */
  async check(url: string | undefined): Promise<TokenCheck> {
    if (url === undefined) return false;
    let given: string[];
    try {
      given = new URL(url, 'http://callback.invalid').searchParams.getAll(CALLBACK_TOKEN_PARAM);
    } catch {
      return false;
    }
    if (given.length !== 1) return false;
    const token = given[0] as string;
    const dot = token.indexOf('.');
    const nonce = dot < 0 ? undefined : token.slice(0, dot);
    if (nonce !== undefined && !NONCE.test(nonce)) return false;
    const proof = nonce === undefined ? token : token.slice(dot + 1);
    // A token made here: its proof is known. Else (another process, an older secret) each secret's is made.
    const known = nonce === undefined ? undefined : this.#made.get(nonce);
    if (known !== undefined && constantTimeEqual(proof, known)) return { nonce };
    const expected = nonce === undefined ? await this.#legacy : await Promise.all((await this.#keys).map((key) => mac(key, TOKEN_LABEL + nonce)));
    // Check every secret (no early return), so timing does not tell which one is in use.
    let ok = false;
    for (const candidate of expected) ok = constantTimeEqual(proof, candidate) || ok;
    return ok && { nonce };
  }

  /** Whether the delivery's URL carries a token of one of the secrets, of either form. */
  async accepts(url: string | undefined): Promise<boolean> {
    return (await this.check(url)) !== false;
  }
}
