/**
 * How much the client logs: `off`, `error`, `warn` (the default), `info` or `debug`.
 *
 * @example
 * ```ts
 * const client = new OmniMedia({ logLevel: 'debug' }); // or OMNIMEDIA_LOG=debug
 * ```
 */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

/**
 * Anything with console's four methods: `console`, pino, winston...
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * const client = new OmniMedia({ logger: pino(), logLevel: 'info' });
 * ```
 */
export interface Logger {
  /** A failure the caller does not otherwise see (an `onTask` that threw, a callback that could not be verified). */
  error(message: string, ...args: unknown[]): void;
  /** Something to look at that did not fail the call (a rejected callback token, a Redis outage, an answer field read leniently). Said once where it repeats. */
  warn(message: string, ...args: unknown[]): void;
  /** What the client did about a passing fault: a retry and its delay, a wait's failed query. */
  info(message: string, ...args: unknown[]): void;
  /** Every request, for a bug hunt (`logLevel: 'debug'`, or `OMNIMEDIA_LOG=debug`). */
  debug(message: string, ...args: unknown[]): void;
}

const RANK: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };

// A key this long never turns up in ordinary text by chance: every occurrence is the key, even
// glued to other characters (a hostile echo). A shorter one ('test', as in testing examples)
// does, inside words ('latest-task'): it is removed only where it stands as a token of its own.
const ALWAYS_SECRET_LENGTH = 16;

/** Remove from `text` every occurrence of `secret` that could be the key (see above). */
export function redact(text: string, secret: string | undefined): string {
  if (!secret || !text.includes(secret)) return text;
  if (secret.length >= ALWAYS_SECRET_LENGTH) return text.split(secret).join('[redacted]');
  const escaped = secret.replace(/[$()*+.?[\\\]^{|}]/g, '\\$&');
  return text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'gu'), '[redacted]');
}

/**
 * The key as a service's echo may write it: as is, percent-encoded (either case of hex), and in
 * base64, standard or URL-safe. Inside a longer base64 text (`Bearer <key>`, `user:<key>`) the
 * key's bytes start at one of three places in a 3-byte group, which gives three runs of
 * characters that any such text holds: all six are listed.
 */
export function keyForms(key: string): string[] {
  const percent = encodeURIComponent(key);
  const forms = new Set([key, percent, percent.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())]);
  const bytes = new TextEncoder().encode(key);
  for (let offset = 0; offset < 3; offset++) {
    const whole = bytes.subarray(offset, bytes.length - ((bytes.length - offset) % 3));
    if (whole.length === 0) continue;
    const base64 = btoa(String.fromCharCode(...whole));
    forms.add(base64).add(base64.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...forms];
}

/**
 * `value` with `secret` removed from every string in it (keys too), for data parsed from a
 * response: redacting the raw text before `JSON.parse` misses a key written with escapes
 * (`\/` for `/`, `\u0041`...), which parsing turns back into the key.
 */
export function redactDeep(value: unknown, secret: string | undefined): unknown {
  if (!secret) return value;
  if (typeof value === 'string') return redact(value, secret);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, secret));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) if (key !== '__proto__') out[redact(key, secret)] = redactDeep(item, secret);
    return out;
  }
  return value;
}

/** A copy of `headers` with `secret` removed from every value (a server may echo `Authorization`). */
export function redactHeaders(headers: Headers, secret: string | undefined): Headers {
  if (!secret) return headers;
  const out = new Headers();
  headers.forEach((value, name) => out.append(name, redact(value, secret)));
  return out;
}

function redactValue(value: unknown, secret: string | undefined): unknown {
  if (!secret) return value;
  if (typeof value === 'string') return redact(value, secret);
  if (value instanceof Error) return redact(String(value.stack ?? value.message), secret);
  if (value && typeof value === 'object') {
    try {
      return JSON.parse(redact(JSON.stringify(value), secret)) as unknown;
    } catch {
      return '[unserializable]';
    }
  }
  return value;
}

/** The client's logger, which also tells whether a level is on (hot paths skip building lines nobody reads). */
export interface LevelledLogger extends Logger {
  enabled(level: Exclude<LogLevel, 'off'>): boolean;
  /** `warn(message)` the first time `key` is seen (a few hundred keys at most), never again. */
  warnOnce(key: string, message: string): void;
}

/** Keys a logger remembers for `warnOnce`: a bound, however odd the answers. */
const MAX_WARN_ONCE_KEYS = 500;

/**
 * The logger the client uses: drops messages below `level` and scrubs the API key from
 * messages and arguments, so a key cannot reach a log even through an echoed error body.
 */
export function createLogger(target: Logger, level: LogLevel, secret: string | undefined): LevelledLogger {
  const enabled = (name: Exclude<LogLevel, 'off'>) => RANK[level] >= RANK[name];
  const at = (name: Exclude<LogLevel, 'off'>) =>
    enabled(name)
      ? (message: string, ...args: unknown[]) =>
          target[name](`[omnimedia] ${redact(message, secret)}`, ...args.map((a) => redactValue(a, secret)))
      : () => {};
  const warn = at('warn');
  const warned = new Set<string>();
  const warnOnce = (key: string, message: string) => {
    if (warned.has(key) || warned.size >= MAX_WARN_ONCE_KEYS) return;
    warned.add(key);
    warn(message);
  };
  return { error: at('error'), warn, info: at('info'), debug: at('debug'), enabled, warnOnce };
}
