import { mapStrings, type Redactor } from './redact.ts';

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

/** A log argument as `Redactor.text` leaves text: an error by its stack, other objects by their JSON data. */
function redactValue(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') return redactor.text(value);
  if (value instanceof Error) return redactor.text(String(value.stack ?? value.message));
  if (value && typeof value === 'object') {
    try {
      return mapStrings(JSON.parse(JSON.stringify(value)) as unknown, redactor.text);
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
 * The logger the client uses: drops messages below `level` and passes messages and arguments
 * through the client's redactor, so no secret reaches a log, even through an echoed error body.
 */
export function createLogger(target: Logger, level: LogLevel, redactor: Redactor): LevelledLogger {
  const enabled = (name: Exclude<LogLevel, 'off'>) => RANK[level] >= RANK[name];
  const at = (name: Exclude<LogLevel, 'off'>) =>
    enabled(name)
      ? (message: string, ...args: unknown[]) =>
          target[name](`[omnimedia] ${redactor.text(message)}`, ...args.map((a) => redactValue(a, redactor)))
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
