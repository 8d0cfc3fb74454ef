/**
 * Making callback tokens (the client's side of `callbackSecret`): each submission's
 * `callback_url` gets `<nonce>.<HMAC-SHA-256(secret, label + nonce)>` (base64url). Checking a
 * delivery's token is the server's side (token.ts); a page's build has this part only
 * (token.browser.ts), since a page receives no callback.
 */
import { ValidationError } from '../errors.ts';
import { CALLBACK_TOKEN_PARAM } from '../internal/redact.ts';

/** Labels of the two token forms (HMAC messages), so a token of one form never passes as the other. */
const LEGACY_LABEL = 'omnimedia callback token v1';
export const TOKEN_LABEL = 'omnimedia callback token v2\n';

/**
 * What a delivery's token says: not one of ours (`false`), or ours, with the nonce it was made
 * with (`undefined` for a token of the first form, made for no submission in particular).
 */
export type TokenCheck = false | { nonce: string | undefined };

export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export const encoder = new TextEncoder();

async function macKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

export async function mac(key: CryptoKey, message: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message))));
}

/** Makes the tokens of a client's secrets (the first secret makes them); see `CallbackTokens`. */
export class TokenMinter {
  /** @internal Each secret's HMAC key, the newest first. */
  readonly keys: Promise<CryptoKey[]>;
  /** @internal Each secret's token of the first form (`HMAC(secret, label)`), made before tokens were per submission. */
  readonly legacy: Promise<string[]>;
  /** The next token, made ahead: a submission takes one already made (crypto.subtle answers on another turn). */
  #next: Promise<{ nonce: string; proof: string }>;

  /**
   * `secrets`: checked by `resolveClientOptions`, the newest first. `learn`: told each token of
   * the first form once derived (the client's redactor: one per secret), so that one is hidden
   * wherever it shows. A per-submission token only ever travels as the `omnimedia_token`
   * parameter, which the redactor hides by name.
   */
  constructor(secrets: string | readonly string[], learn?: (token: string) => void) {
    this.keys = Promise.all((typeof secrets === 'string' ? [secrets] : secrets).map(macKey));
    this.legacy = this.keys.then((keys) => Promise.all(keys.map((key) => mac(key, LEGACY_LABEL))));
    if (learn) void this.legacy.then((tokens) => tokens.forEach(learn), () => {});
    this.#next = this.#make();
    // Surfaced by the first use; not an unhandled rejection at construction.
    this.legacy.catch(() => {});
    this.#next.catch(() => {});
  }

  async #make(): Promise<{ nonce: string; proof: string }> {
    const [current] = await this.keys;
    const nonce = base64url(crypto.getRandomValues(new Uint8Array(16)));
    return { nonce, proof: await mac(current as CryptoKey, TOKEN_LABEL + nonce) };
  }

  /** @internal Told each token made here (the server's side keeps their proofs for their deliveries). */
  protected made(_nonce: string, _proof: string): void {}

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
    this.made(nonce, proof);
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
}

/** `callbacks.url`: `url` with a new token of `tokens` (a client's `callbackSecret`), unchanged without one. */
export async function callbackURL(tokens: TokenMinter | undefined, url: string): Promise<string> {
  if (typeof url !== 'string' || !URL.canParse(url)) throw new ValidationError([{ path: 'url', message: 'must be an absolute URL' }], 'callbacks.url');
  return tokens ? tokens.addTo(url) : url;
}
