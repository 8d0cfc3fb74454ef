/**
 * option-checks.ts: the one checker of options (the client's and each call's). A bad option
 * is a `ValidationError` naming it and the rule, thrown before anything is sent; the result is
 * the settings features run with, every default filled in (defaults in options.ts).
 */
import type { CallbackDedupeStore, Coordination } from './coordination/ports.ts';
import { ValidationError, type ValidationIssue } from './errors.ts';
import { shown } from './internal/error-text.ts';
import type { LogLevel, Logger } from './internal/logger.ts';
import {
  DEFAULT_CALLBACK_MAX_BYTES,
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_LEASE_MS,
  DEFAULT_REDIS_PREFIX,
  DEFAULT_CALLBACK_READ_TIMEOUT_MS,
  DEFAULT_INITIAL_DELAY_MS,
  DEFAULT_INTERVAL_MS,
  DEFAULT_MAX_INTERVAL_MS,
  DEFAULT_MAX_POLLS_PER_SECOND,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_UPLOAD_TIMEOUT_MS,
  type CallbackHandlerOptions,
  type ClientOptions,
  type DownloadOptions,
  type ParseCallbackOptions,
  type RequestOptions,
  type UploadCacheOptions,
  type RedisCoordinationOptions,
  type WaitOptions,
} from './options.ts';
import type { Telemetry } from './telemetry/ports.ts';
import type { Fetch } from './transport/http-client.ts';
import { isPlainRecord, readOrUndefined } from './internal/plain-data.ts';
import { readCallerInput } from './validation/caller-input.ts';

// A timer cannot hold more (setTimeout fires at once beyond it).
const MAX_TIMER_MS = 2 ** 31 - 1;


/** Collects the problems of one set of options; `done()` throws them as one `ValidationError`. */
export class OptionProblems {
  readonly #issues: ValidationIssue[] = [];
  readonly #context: string;

  constructor(context: string) {
    this.#context = context;
  }

  add(path: string, message: string): void {
    this.#issues.push({ path, message });
  }

  /**
   * The one rule of every millisecond option: a whole number of ms from `min` to 2^31-1 (a
   * timer's limit), when given. `min` is 0 only where 0 means "at once" (`initialDelay`,
   * `uploadCache.margin`); elsewhere 0 would be a deadline already past.
   */
  ms(path: string, value: unknown, min: number): void {
    if (value === undefined) return;
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > MAX_TIMER_MS)
      this.add(path, `must be a whole number of ms from ${min} to ${MAX_TIMER_MS} (got ${shown(value)})`);
  }

  /** A whole number from `min`, when given. */
  count(path: string, value: unknown, min: number): void {
    if (value === undefined) return;
    if (!Number.isSafeInteger(value) || (value as number) < min)
      this.add(path, `must be ${min === 0 ? 'a non-negative' : 'a positive'} integer (got ${shown(value)})`);
  }

  signal(value: unknown): void {
    const signal = value as Partial<AbortSignal> | null;
    if (value !== undefined && !readOrUndefined(() => !!signal && typeof signal.addEventListener === 'function' && typeof signal.aborted === 'boolean'))
      this.add('signal', 'must be an AbortSignal');
  }

  /** A port (an object with the method `method`), when given. */
  port(path: string, value: unknown, method: string, what: string): void {
    if (value !== undefined && typeof readOrUndefined(() => (value as Record<string, unknown> | null)?.[method]) !== 'function') this.add(path, `must be ${what}`);
  }

  fn(path: string, value: unknown): void {
    if (value !== undefined && typeof value !== 'function') this.add(path, 'must be a function');
  }

  done(taskId?: string): void {
    if (this.#issues.length === 0) return;
    const error = new ValidationError(this.#issues, this.#context);
    if (taskId !== undefined) error.taskId = taskId;
    throw error;
  }
}

/** An options argument, an object when given, read once (`readCallerInput`: ports and functions kept as given). */
export function objectOf<T extends object>(options: T | undefined, context: string, taskId?: string): Partial<Record<keyof T, unknown>> {
  if (options === undefined || options === null) return {};
  try {
    if (typeof options !== 'object') throw new ValidationError([{ path: '', message: 'options must be an object' }], context);
    return readCallerInput(options, `${context} options`) as Partial<Record<keyof T, unknown>>;
  } catch (error) {
    // Options of a call about a task (a wait): the error says which task.
    if (error instanceof ValidationError && taskId !== undefined) error.taskId = taskId;
    throw error;
  }
}

/**
 * Check the per-call options of a request method (`signal`, `timeout`, `maxRetries`, `onProgress`,
 * a download's `idleTimeout`, `overwrite`) before anything is sent; returns them as read, once (`taskId`: the errors' task).
 */
export function checkRequestOptions<O extends RequestOptions | DownloadOptions>(options: O | undefined, context: string, taskId?: string): O {
  const o = objectOf(options as DownloadOptions | undefined, context, taskId);
  const problems = new OptionProblems(`${context} options`);
  problems.signal(o.signal);
  problems.ms('timeout', o.timeout, 1);
  problems.ms('idleTimeout', o.idleTimeout, 1);
  problems.count('maxRetries', o.maxRetries, 0);
  problems.fn('onProgress', o.onProgress);
  if (o.overwrite !== undefined && typeof o.overwrite !== 'boolean') problems.add('overwrite', `must be true or false (got ${shown(o.overwrite)})`);
  problems.done(taskId);
  return o as O;
}

/** What a wait runs with: the options checked, the defaults filled in. */
export interface WaitSettings {
  /** `undefined`: the default deadline of the kind of task. */
  timeout: number | undefined;
  initialDelay: number;
  interval: number;
  maxInterval: number;
  learn: boolean;
  signal: AbortSignal | undefined;
  onProgress: WaitOptions['onProgress'];
}

/**
 * Check the options of a wait and fill in the defaults; a `ValidationError` carries the task id
 * (none when they are checked before a submission, as the CLI does).
 */
export function resolveWaitOptions(options: WaitOptions | undefined, taskId?: string): WaitSettings {
  const o = objectOf(options, 'wait', taskId);
  const problems = new OptionProblems('wait options');
  problems.ms('timeout', o.timeout, 1);
  problems.ms('initialDelay', o.initialDelay, 0);
  problems.ms('interval', o.interval, 1);
  problems.ms('maxInterval', o.maxInterval, 1);
  if (typeof o.interval === 'number' && typeof o.maxInterval === 'number' && o.interval > o.maxInterval)
    problems.add('interval', `must not exceed maxInterval (${o.maxInterval} ms)`);
  problems.fn('onProgress', o.onProgress);
  problems.signal(o.signal);
  problems.done(taskId);
  const maxInterval = (o.maxInterval as number | undefined) ?? DEFAULT_MAX_INTERVAL_MS;
  return {
    timeout: o.timeout as number | undefined,
    initialDelay: (o.initialDelay as number | undefined) ?? DEFAULT_INITIAL_DELAY_MS,
    interval: (o.interval as number | undefined) ?? Math.min(DEFAULT_INTERVAL_MS, maxInterval),
    maxInterval,
    learn: (o.learn as boolean | undefined) ?? true,
    signal: o.signal as AbortSignal | undefined,
    onProgress: o.onProgress as WaitOptions['onProgress'],
  };
}

/** Check `parseCallback`'s options; the body cap in bytes. */
export function resolveParseCallbackOptions(options: ParseCallbackOptions | undefined): number {
  const o = objectOf(options, 'parseCallback');
  const problems = new OptionProblems('parseCallback options');
  problems.count('maxBytes', o.maxBytes, 1);
  problems.done();
  return (o.maxBytes as number | undefined) ?? DEFAULT_CALLBACK_MAX_BYTES;
}

/** Check the options of `callbacks.verify`: `parseCallback`'s, and the `signal` of its task query. */
export function resolveVerifyOptions(options: (ParseCallbackOptions & { signal?: AbortSignal }) | undefined): { parse: ParseCallbackOptions; signal: AbortSignal | undefined } {
  const o = objectOf(options, 'callbacks.verify');
  const problems = new OptionProblems('callbacks.verify options');
  problems.signal(o.signal);
  problems.done();
  return { parse: o as ParseCallbackOptions, signal: o.signal as AbortSignal | undefined };
}

/** What a callback handler runs with. */
export interface HandlerSettings {
  verify: boolean;
  /** `true`: the default store; `false`: none; else the caller's store. */
  dedupe: boolean | CallbackDedupeStore;
  maxBytes: number;
  readTimeout: number;
}

/** Check a callback handler's options and fill in the defaults. */
export function resolveHandlerOptions(options: CallbackHandlerOptions | undefined): HandlerSettings {
  const o = objectOf(options, 'callback handler');
  const problems = new OptionProblems('callback handler options');
  problems.count('maxBytes', o.maxBytes, 1);
  problems.ms('readTimeout', o.readTimeout, 1);
  const dedupe = o.dedupe;
  if (dedupe !== undefined && typeof dedupe !== 'boolean') {
    const store = dedupe as Partial<CallbackDedupeStore> | null;
    if (!readOrUndefined(() => !!store && typeof store.claim === 'function' && typeof store.release === 'function')) problems.add('dedupe', 'must be a boolean or a store with claim and release');
  }
  problems.done();
  return {
    verify: (o.verify as boolean | undefined) ?? true,
    dedupe: (dedupe as boolean | CallbackDedupeStore | undefined) ?? true,
    maxBytes: (o.maxBytes as number | undefined) ?? DEFAULT_CALLBACK_MAX_BYTES,
    readTimeout: (o.readTimeout as number | undefined) ?? DEFAULT_CALLBACK_READ_TIMEOUT_MS,
  };
}

/** What a client runs with, every option checked and every default filled in. */
export interface ClientSettings {
  apiKey: string | undefined;
  /** Ends in `/`. */
  baseURL: string;
  timeout: number;
  uploadTimeout: number;
  maxRetries: number;
  fetch: Fetch | undefined;
  defaultHeaders: Record<string, string>;
  logger: Logger;
  logLevel: LogLevel;
  callbackSecrets: readonly string[] | undefined;
  /** The upload cache's options when it is on (`UploadCache` fills in its defaults). */
  uploadCache: UploadCacheOptions | undefined;
  maxPollsPerSecond: number;
  coordination: Coordination | undefined;
  /** `baseURL` is the app's proxy (`proxyURL`): no key, and the page's cookies go along. */
  proxied: boolean;
  telemetry: Telemetry | undefined;
}

const LOG_LEVELS: readonly LogLevel[] = ['off', 'error', 'warn', 'info', 'debug'];

/**
 * What a service address (`baseURL`, `proxyURL`, the proxy's `baseURL`; `given` as typed, `url`
 * parsed) must not hold, or `undefined`: every path is appended to it, so a query would swallow the path (`/?x=1/v1/...`),
 * a fragment would make fetch drop it (every call to the root), and fetch refuses credentials.
 */
export function serviceAddressProblem(given: string, url: URL): string | undefined {
  // The text, not only the URL: a bare `?` or `#` leaves `search` and `hash` empty.
  return url.username || url.password || /[?#]/.test(given) ? 'must not hold a user name, a password, a query or a fragment' : undefined;
}

/** What every client runs with: the options `TasksClient` takes too. */
export type ConnectionSettings = Pick<
  ClientSettings,
  'baseURL' | 'timeout' | 'maxRetries' | 'fetch' | 'defaultHeaders' | 'logger' | 'logLevel' | 'maxPollsPerSecond' | 'telemetry' | 'proxied'
>;

/**
 * Check the options every client has (the service's address or the app's proxy, timeouts,
 * retries, fetch, headers, logging, the poll budget, telemetry), with the environment's defaults (`env(name)`
 * reads one). A keyless page's `TasksClient` checks these only, so its bundle carries none of
 * the rest (key, callbacks, uploads, fleet).
 */
function checkConnection(
  o: Partial<Record<keyof ClientOptions, unknown>>,
  problems: OptionProblems,
  env: (name: string) => string | undefined,
): ConnectionSettings {
  const proxy = o.proxyURL as string | undefined;
  const name = proxy === undefined ? 'baseURL' : 'proxyURL';
  // Behind a proxy the page holds no key and names no service: the proxy's server does both.
  if (proxy !== undefined)
    for (const other of ['apiKey', 'baseURL'] as const) if (o[other] !== undefined) problems.add(other, 'not with proxyURL: the proxy on your server holds it');
  const given = proxy ?? (o.baseURL as string | undefined) ?? env('OMNIMEDIA_BASE_URL');
  // A proxyURL may be relative to the page. Where there is no page (a page's module evaluated
  // while the server renders it) a relative one stays so, and resolves at the first request.
  const page = proxy === undefined ? undefined : (globalThis as { location?: { href?: string } }).location?.href;
  const deferred = proxy !== undefined && page === undefined && typeof proxy === 'string' && !URL.canParse(proxy);
  const against = deferred ? 'http://page.invalid/' : page;
  const url = typeof given === 'string' && URL.canParse(given, against) ? new URL(given, against) : undefined;
  if (!given) problems.add(name, 'is required: pass baseURL (in a page: proxyURL) or set OMNIMEDIA_BASE_URL');
  else if (!url || !/^https?:$/.test(url.protocol))
    problems.add(name, `must be ${proxy === undefined ? 'an absolute http(s) URL' : 'an http(s) URL, absolute or relative to the page'} (got "${shown(given)}")`);
  else {
    const problem = serviceAddressProblem(String(given), url);
    if (problem) problems.add(name, problem);
  }
  const headers = o.defaultHeaders;
  const headersOk = headers === undefined || (isPlainRecord(headers) && Object.values(headers).every((v) => typeof v === 'string'));
  if (!headersOk) problems.add('defaultHeaders', 'must be an object of header names and string values');
  problems.ms('timeout', o.timeout, 1);
  problems.count('maxRetries', o.maxRetries, 0);
  problems.count('maxPollsPerSecond', o.maxPollsPerSecond, 1);
  problems.fn('fetch', o.fetch);
  const envLevel = env('OMNIMEDIA_LOG');
  const logLevel = (o.logLevel as LogLevel | undefined) ?? (LOG_LEVELS.includes(envLevel as LogLevel) ? (envLevel as LogLevel) : 'warn');
  if (!LOG_LEVELS.includes(logLevel)) problems.add('logLevel', `must be one of ${LOG_LEVELS.join(', ')} (got ${shown(logLevel)})`);
  problems.port('telemetry', o.telemetry, 'call', 'a Telemetry, such as openTelemetry() from omnimedia/otel');
  return {
    // Used only once the checks passed (done() throws after this returns): never stringify what
    // they refused (an object's toString may throw).
    baseURL: url === undefined ? '' : `${proxy === undefined || deferred ? given : url.href}`.replace(/\/?$/, '/'),
    timeout: (o.timeout as number | undefined) ?? DEFAULT_TIMEOUT_MS,
    maxRetries: (o.maxRetries as number | undefined) ?? DEFAULT_MAX_RETRIES,
    fetch: o.fetch as Fetch | undefined,
    defaultHeaders: headersOk ? { ...(headers as Record<string, string> | undefined) } : {},
    logger: (o.logger as Logger | undefined) ?? console,
    logLevel,
    maxPollsPerSecond: (o.maxPollsPerSecond as number | undefined) ?? DEFAULT_MAX_POLLS_PER_SECOND,
    telemetry: o.telemetry as Telemetry | undefined,
    proxied: proxy !== undefined,
  };
}

/** Check the options of a `TasksClient` (a keyless task client: no key is read) and fill in the rest. */
export function resolveTasksClientOptions(options: ClientOptions | undefined, env: (name: string) => string | undefined): ConnectionSettings {
  const problems = new OptionProblems('new TasksClient options');
  const settings = checkConnection(objectOf(options, 'new TasksClient'), problems, env);
  problems.done();
  return settings;
}

/**
 * Check the client's options, with the environment's defaults (`env(name)` reads one), and
 * fill in the rest. `isBrowser` tells whether a key would be visible to the page's user.
 */
export function resolveClientOptions(
  options: ClientOptions | undefined,
  env: (name: string) => string | undefined,
  isBrowser: boolean,
): ClientSettings {
  const o = objectOf(options, 'new OmniMedia');
  const problems = new OptionProblems('new OmniMedia options');
  const connection = checkConnection(o, problems, env);
  const apiKey = connection.proxied ? undefined : ((o.apiKey as string | undefined) ?? env('OMNIMEDIA_API_KEY'));
  // An Authorization header holds visible ASCII only (fetch throws on anything else, and it would be no network fault).
  if (apiKey !== undefined && (typeof apiKey !== 'string' || (apiKey !== '' && !/^[\x21-\x7e]+$/.test(apiKey)))) problems.add('apiKey', 'must be a string of visible ASCII characters');
  if (apiKey && isBrowser && !o.dangerouslyAllowBrowser)
    problems.add(
      'apiKey',
      'anyone who opens the page can read it: keep it on your server behind createProxy (omnimedia/proxy) and pass proxyURL, ' +
        'or set dangerouslyAllowBrowser: true to accept the risk',
    );
  problems.ms('uploadTimeout', o.uploadTimeout, 1);
  const secret = o.callbackSecret as string | readonly string[] | undefined;
  const secrets = secret === undefined ? undefined : typeof secret === 'string' ? [secret] : secret;
  if (secrets !== undefined && (!Array.isArray(secrets) || secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s.length < 1)))
    problems.add('callbackSecret', 'must be a non-empty string or a non-empty list of them');
  const coordination = o.coordination as Coordination | undefined;
  problems.port('coordination', coordination, 'budget', 'a Coordination, such as redisCoordination(redis) from omnimedia/redis');
  // With a coordination the upload cache is on by default, on the fleet's store.
  const cache = o.uploadCache ?? (coordination ? true : undefined);
  if (cache !== undefined && typeof cache !== 'boolean' && !isPlainRecord(cache)) problems.add('uploadCache', 'must be true, false or the cache’s options');
  const cacheOptions: UploadCacheOptions | undefined = cache === true ? {} : isPlainRecord(cache) ? cache : undefined;
  if (cacheOptions) {
    problems.ms('uploadCache.margin', cacheOptions.margin, 0);
    problems.count('uploadCache.maxEntries', cacheOptions.maxEntries, 1);
  }
  problems.done();
  return {
    ...connection,
    apiKey: apiKey || undefined,
    uploadTimeout: (o.uploadTimeout as number | undefined) ?? DEFAULT_UPLOAD_TIMEOUT_MS,
    callbackSecrets: secrets,
    uploadCache: cacheOptions && coordination && !cacheOptions.store ? { ...cacheOptions, store: coordination.uploads } : cacheOptions,
    coordination,
  };
}

/** `redisCoordination`'s options with every default filled in. */
export interface RedisCoordinationSettings {
  prefix: string;
  leaseMs: number;
  commandTimeoutMs: number;
  logger: Logger;
}

/** Check the options of `redisCoordination` (its client is checked where it is driven). */
export function resolveRedisCoordinationOptions(options: RedisCoordinationOptions | undefined): RedisCoordinationSettings {
  const o = objectOf(options, 'redisCoordination');
  const problems = new OptionProblems('redisCoordination options');
  if (o.prefix !== undefined && (typeof o.prefix !== 'string' || o.prefix.length === 0)) problems.add('prefix', 'must be a non-empty string');
  problems.ms('leaseMs', o.leaseMs, 300);
  problems.ms('commandTimeoutMs', o.commandTimeoutMs, 1);
  const logger = o.logger as Logger | undefined;
  if (logger !== undefined && (typeof logger !== 'object' || logger === null || typeof logger.warn !== 'function')) problems.add('logger', 'must have a warn(message) method, as console does');
  problems.done();
  return {
    prefix: (o.prefix as string | undefined) ?? DEFAULT_REDIS_PREFIX,
    leaseMs: (o.leaseMs as number | undefined) ?? DEFAULT_LEASE_MS,
    commandTimeoutMs: (o.commandTimeoutMs as number | undefined) ?? DEFAULT_COMMAND_TIMEOUT_MS,
    logger: logger ?? console,
  };
}
