import { BoundedMap } from '../internal/bounded-map.ts';
import { CALLBACK_TOKEN_PARAM } from '../internal/redact.ts';
import { encoder, mac, TOKEN_LABEL, TokenMinter, type TokenCheck } from './token-mint.ts';

export { CALLBACK_TOKEN_PARAM };
export type { TokenCheck };

/** Tokens made here whose proofs are kept for their deliveries (the oldest forgotten first; they are then checked with crypto). */
const MADE_KEPT = 10_000;
/** A nonce: 16 random bytes, base64url (what `mint` makes; a delivery's is checked against it). */
const NONCE = /^[A-Za-z0-9_-]{22}$/;

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
export class CallbackTokens extends TokenMinter {
  /** The proofs of the tokens made here lately, by nonce: their deliveries are checked without crypto. */
  readonly #made = new BoundedMap<string, string>(MADE_KEPT);

  protected override made(nonce: string, proof: string): void {
    this.#made.set(nonce, proof);
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
    const expected = nonce === undefined ? await this.legacy : await Promise.all((await this.keys).map((key) => mac(key, TOKEN_LABEL + nonce)));
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
