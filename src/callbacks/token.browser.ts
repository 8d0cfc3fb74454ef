/**
 * The browser twin of token.ts: a page makes the tokens of its submissions' callback URLs but
 * receives no callback, so it has no token checks (they belong to the callback handlers, which
 * a page's build leaves out: resources/callbacks.browser.ts). Browser builds use this module
 * instead (see tsup.config.ts).
 */
import { CALLBACK_TOKEN_PARAM } from '../internal/redact.ts';
import { TokenMinter, type TokenCheck } from './token-mint.ts';

export { CALLBACK_TOKEN_PARAM };
export type { TokenCheck };

/** The `callbackSecret` of a client in a page: it makes tokens (see token-mint.ts). */
export class CallbackTokens extends TokenMinter {}
