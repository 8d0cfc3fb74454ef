/**
 * The options of `createProxy` (`omnimedia/proxy`), their defaults and their check (with the
 * SDK's one option checker, `OptionProblems`). Here rather than in options.ts: they are the
 * server entry's alone, and no other layer reads them.
 */
import { MemoryRateLimits } from '../coordination/memory.ts';
import type { Coordination, RateLimitStore } from '../coordination/ports.ts';
import { createLogger, type LevelledLogger, type Logger } from '../internal/logger.ts';
import { objectOf, OptionProblems, serviceAddressProblem } from '../option-checks.ts';
import { DEFAULT_PROXY_IDLE_TIMEOUT_MS, DEFAULT_PROXY_TIMEOUT_MS } from '../options.ts';
import type { Fetch } from '../transport/http-client.ts';
import { normalizeOrigin } from './origin.ts';
import { createRedactor, type Redactor } from '../internal/redact.ts';

/**
 * What a request to `omnimedia/proxy` does: one of the spec's seven endpoints, or a task's
 * events (`task_events`, `GET <basePath>/v1/tasks/{task_id}/events`, Server-Sent Events).
 *
 * @example
 * ```ts
 * const policy = ({ operation }: { operation: ProxyOperation }) => operation !== 'video_edit';
 * ```
 */
export type ProxyOperation = 'image_generation' | 'image_edit' | 'video_generation' | 'video_edit' | 'image_upload' | 'video_upload' | 'task_query' | 'task_events';

/**
 * Who asks, as `authorize` found: any object with an `id` (a string, or a number), which names
 * the identity in rate limits and in `policy` / `onSubmitted`.
 *
 * @example
 * ```ts
 * const identity: ProxyIdentity = { id: user.id, plan: user.plan };
 * ```
 */
export interface ProxyIdentity {
  /** Who this is, for rate limits and your hooks. */
  id: string | number;
  /** Anything else your `authorize` knows (a plan, a team), handed to `policy` and the hooks as it is. */
  [key: string]: unknown;
}

/**
 * What `policy` is asked about: the identity, the operation, and its checked parameters (a
 * submission's JSON body; an upload's `{ filename, content_type }`; a query's `{ task_id }`).
 *
 * @example
 * ```ts
 * const policy = ({ identity, operation, params }: ProxyPolicyRequest) => operation !== 'video_generation' || identity.plan === 'pro';
 * ```
 */
export interface ProxyPolicyRequest {
  /** What `authorize` returned. */
  identity: ProxyIdentity;
  /** Which endpoint. */
  operation: ProxyOperation;
  /** A copy of what will be sent: the checked body, `{ filename, content_type }` or `{ task_id }`. */
  params: Record<string, unknown>;
  /** The page's request (its body already read or being read: do not read it). */
  request: Request;
}

/**
 * A submission the service accepted, as `onSubmitted` hears it.
 *
 * @example
 * ```ts
 * const onSubmitted = ({ identity, task_id }: ProxySubmission) => db.tasks.insert({ task_id, owner: identity.id });
 * ```
 */
export interface ProxySubmission {
  /** Who submitted it. */
  identity: ProxyIdentity;
  /** Which kind of submission. */
  operation: ProxyOperation;
  /** The service's id of the accepted task. */
  task_id: string;
}

/**
 * Requests an identity may make in a sliding window.
 *
 * @example
 * ```ts
 * const rule: ProxyRateLimit = { limit: 20, windowMs: 60_000 }; // 20 a minute
 * ```
 */
export interface ProxyRateLimit {
  /** Requests let through in any window. */
  limit: number;
  /** The window, ms: a request counts for this long after it was let through. */
  windowMs: number;
}

/**
 * Limits of the task events route (`GET <basePath>/v1/tasks/{task_id}/events`), or `false` to
 * turn it off (404). See the guide [Live pages](https://github.com/omnimedia/omnimedia/blob/main/docs/live-pages.md).
 *
 * @example
 * ```ts
 * const events: ProxyEventsOptions = { perIdentity: 8, perProcess: 2_000, maxStreamMs: 15 * 60_000, heartbeatMs: 10_000 };
 * ```
 */
export interface ProxyEventsOptions {
  /** Streams one identity may hold open at once in this process; beyond, 429 with `Retry-After`. Default 16. */
  perIdentity?: number;
  /** Streams this proxy holds open at once; beyond, 429 with `Retry-After`. Default 1,000. */
  perProcess?: number;
  /** A stream ends after this many ms (the page's client opens the next one). Default 30 minutes. */
  maxStreamMs?: number;
  /** A `: ping` comment at least this often, in ms, so that intermediaries keep the stream open. Default 15,000, at most 30,000. */
  heartbeatMs?: number;
}

/**
 * Options of `createProxy` (`omnimedia/proxy`). Only `authorize` is required. See the guide
 * [Browser apps](https://github.com/omnimedia/omnimedia/blob/main/docs/browser-apps.md).
 *
 * @example
 * ```ts
 * const proxy = createProxy({ basePath: '/api/omnimedia', authorize: async (request) => (await session(request)) ?? null });
 * ```
 */
export interface ProxyOptions {
  /**
   * The app's own auth, run first for every request (task queries too): an identity, or a
   * falsy value for 401. Throwing `ProxyDenied` is a 403 with its message; throwing anything
   * else is a 500. Either way nothing is forwarded.
   */
  authorize: (request: Request) => ProxyIdentity | null | undefined | false | Promise<ProxyIdentity | null | undefined | false>;
  /**
   * Default: `OMNIMEDIA_API_KEY`, read when the first request is forwarded (so a build without
   * the secret succeeds). Required (here or there): without it every request is a 500, logged.
   */
  apiKey?: string | undefined;
  /** Default: `OMNIMEDIA_BASE_URL`, read as `apiKey` is. Required (here or there); a path prefix is kept. */
  baseURL?: string | undefined;
  /** Where the proxy is mounted: it answers `<basePath>/v1/...`. Default `/`. */
  basePath?: string;
  /** Origins of pages on other origins allowed to call it (CORS, with credentials). The request's own origin is always allowed. */
  allowedOrigins?: readonly string[];
  /**
   * The request's own origin is the host of its `Host` header, which a reverse proxy in front
   * may rewrite. `true` when one you run sets `X-Forwarded-Host` (or `Forwarded: host=`) and
   * strips any a client sent: that host is then the request's own. Default `false`. (Only
   * browsers without `Sec-Fetch-Site` need either: the others say `same-origin` themselves.)
   */
  trustProxy?: boolean;
  /** Sent as `callback_url` of every submission, in place of anything the page sent (which is dropped). */
  callbackURL?: string | undefined;
  /** Per identity: submissions, uploads and task queries each in a sliding window; past it, 429 with `Retry-After`. */
  rateLimit?: { submissions?: ProxyRateLimit; uploads?: ProxyRateLimit; queries?: ProxyRateLimit };
  /** Asked before anything is forwarded: `false`, or throwing `ProxyDenied`, is a 403. */
  policy?: (request: ProxyPolicyRequest) => boolean | void | Promise<boolean | void>;
  /** Called once per submission the service accepted, before the page gets its answer. */
  onSubmitted?: (submission: ProxySubmission) => void | Promise<void>;
  /**
   * Shared state of a fleet (`redisCoordination`): the rate limits hold across all the proxy's
   * processes, and one instance polls a task that streams of several instances follow, every
   * status it sees reaching the others (a callback handled on any instance ends every stream).
   */
  coordination?: Coordination;
  /** The task events route's limits (`ProxyEventsOptions`), or `false` to turn it off (404). */
  events?: ProxyEventsOptions | false;
  /** ms for each upstream request (an upload's: from its last byte); then 504. Default 60,000. */
  timeout?: number;
  /** ms a request body may go without progress; then 408, the upstream request aborted. Default 30,000. */
  idleTimeout?: number;
  /** A `fetch` for the upstream requests. */
  fetch?: Fetch;
  /** Where the proxy's warnings go (never with the key). Default `console`. */
  logger?: Logger;
}


/** The service a proxy forwards to: its key and base URL. */
export interface ServiceSettings {
  apiKey: string;
  /** Removes the key, in every form an echo may write it, from what the page gets and the logs. */
  redactor: Redactor;
  /** Ends in `/`. */
  baseURL: string;
}

/** What a proxy runs with: every option checked, every default filled in. */
export interface ProxySettings {
  authorize: ProxyOptions['authorize'];
  /**
   * The key and base URL: the options' (checked at creation), else the environment's, read at
   * the first call (a build without the secrets succeeds). Throws the `ValidationError` naming
   * what is missing or wrong, until it is set.
   */
  service: () => ServiceSettings;
  /** `''` at the root, else `/a/b` (no trailing slash). */
  basePath: string;
  allowedOrigins: ReadonlySet<string>;
  trustProxy: boolean;
  callbackURL: string | undefined;
  rateLimit: NonNullable<ProxyOptions['rateLimit']>;
  /** Where the rate limits count: the coordination's, else this process's. */
  rateLimits: RateLimitStore;
  /** The fleet's shared state, when there is one (the events' watches share it). */
  coordination: Coordination | undefined;
  /** The events route's limits, every default filled in; `false`: off. */
  events: Required<ProxyEventsOptions> | false;
  policy: ProxyOptions['policy'];
  onSubmitted: ProxyOptions['onSubmitted'];
  timeout: number;
  idleTimeout: number;
  fetch: Fetch;
  logger: LevelledLogger;
}

/** The events route's defaults (DESIGN 12). */
const EVENTS_DEFAULTS: Required<ProxyEventsOptions> = { perIdentity: 16, perProcess: 1_000, maxStreamMs: 30 * 60_000, heartbeatMs: 15_000 };
const MAX_HEARTBEAT_MS = 30_000;

const stripUndefined = <T extends object>(value: T): Partial<T> => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;

const isHttpURL = (value: unknown): value is string => typeof value === 'string' && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);

/** The problems of a key, when it is not one. */
function checkKey(apiKey: unknown, problems: OptionProblems): void {
  if (typeof apiKey !== 'string' || apiKey === '') problems.add('apiKey', 'is required: pass apiKey or set OMNIMEDIA_API_KEY (the proxy adds it to what it forwards)');
}

/** The problems of a base URL, when it is not an absolute http(s) URL without credentials, query or fragment. */
function checkBaseURL(baseURL: unknown, problems: OptionProblems): void {
  if (!isHttpURL(baseURL)) problems.add('baseURL', `is required, an absolute http(s) URL: pass baseURL or set OMNIMEDIA_BASE_URL (got ${JSON.stringify(baseURL) ?? 'nothing'})`);
  else {
    const problem = serviceAddressProblem(baseURL, new URL(baseURL));
    if (problem) problems.add('baseURL', problem);
  }
}

/**
 * The key and base URL, read once they are first needed: `apiKey` and `baseURL` as given (they
 * were checked with the other options), else `env`'s. Until both are right it throws the
 * `ValidationError` naming what is not; once they are, they are kept.
 */
function serviceOf(given: { apiKey: unknown; baseURL: unknown }, env: (name: string) => string | undefined, redactor: Redactor): () => ServiceSettings {
  let service: ServiceSettings | undefined;
  return () => {
    if (service) return service;
    const apiKey = given.apiKey ?? env('OMNIMEDIA_API_KEY');
    const baseURL = given.baseURL ?? env('OMNIMEDIA_BASE_URL');
    const problems = new OptionProblems('createProxy options');
    checkKey(apiKey, problems);
    checkBaseURL(baseURL, problems);
    problems.done();
    const key = apiKey as string;
    // The proxy's one redactor (its logger's too) learns the key once it is known.
    redactor.add(key);
    return (service = { apiKey: key, redactor, baseURL: (baseURL as string).replace(/\/?$/, '/') });
  };
}

/**
 * Check `createProxy`'s options and fill in the defaults; a `ValidationError` names every bad
 * option. The key and base URL are the environment's (`env(name)`) when not given, read at
 * the first forward (`ProxySettings.service`).
 */
export function resolveProxyOptions(options: ProxyOptions, env: (name: string) => string | undefined): ProxySettings {
  const o = objectOf(options, 'createProxy');
  const problems = new OptionProblems('createProxy options');
  if (typeof o.authorize !== 'function')
    problems.add('authorize', "is required: the app's own check of who asks (return an identity, or null for 401); authorize: () => ({ id: 'anonymous' }) opens the proxy to anyone");
  // Given ones are checked now, as every option is; the environment's when first needed.
  const given = { apiKey: o.apiKey, baseURL: o.baseURL };
  if (given.apiKey !== undefined) checkKey(given.apiKey, problems);
  if (given.baseURL !== undefined) checkBaseURL(given.baseURL, problems);
  if (o.trustProxy !== undefined && typeof o.trustProxy !== 'boolean') problems.add('trustProxy', 'must be true or false');
  const basePath = o.basePath === undefined ? '/' : o.basePath;
  if (typeof basePath !== 'string' || !/^(?:\/[A-Za-z0-9._~!$&'()*+,;=:@-]+)*\/?$/.test(basePath) || /\/\.{1,2}(?:\/|$)/.test(basePath))
    problems.add('basePath', `must be a plain path such as /api/omnimedia (got ${JSON.stringify(basePath)})`);
  const origins = new Set<string>();
  const listed = o.allowedOrigins;
  if (listed !== undefined && !Array.isArray(listed)) problems.add('allowedOrigins', 'must be a list of origins');
  else
    (listed ?? []).forEach((value: unknown, i: number) => {
      const origin = typeof value === 'string' ? normalizeOrigin(value) : undefined;
      if (value === '*') problems.add(`allowedOrigins[${i}]`, "'*' is never allowed: the proxy answers with the page's cookies");
      else if (origin) origins.add(origin);
      else problems.add(`allowedOrigins[${i}]`, `must be an http(s) origin such as https://app.example.com (got ${JSON.stringify(value)})`);
    });
  if (o.callbackURL !== undefined && !isHttpURL(o.callbackURL)) problems.add('callbackURL', 'must be an absolute http(s) URL');
  const rateLimit = (o.rateLimit ?? {}) as NonNullable<ProxyOptions['rateLimit']>;
  if (typeof rateLimit !== 'object' || rateLimit === null) problems.add('rateLimit', 'must be an object');
  else
    for (const [bucket, rule] of Object.entries(rateLimit)) {
      if (!['submissions', 'uploads', 'queries'].includes(bucket)) problems.add(`rateLimit.${bucket}`, 'is not a limit: submissions, uploads or queries');
      else if (rule !== undefined) {
        const { limit, windowMs } = (rule ?? {}) as Partial<ProxyRateLimit>;
        if (limit === undefined || windowMs === undefined) problems.add(`rateLimit.${bucket}`, 'must be { limit, windowMs }');
        problems.count(`rateLimit.${bucket}.limit`, limit, 1);
        problems.ms(`rateLimit.${bucket}.windowMs`, windowMs, 1);
      }
    }
  problems.fn('policy', o.policy);
  problems.fn('onSubmitted', o.onSubmitted);
  problems.fn('fetch', o.fetch);
  problems.ms('timeout', o.timeout, 1);
  problems.ms('idleTimeout', o.idleTimeout, 1);
  const coordination = o.coordination as Coordination | undefined;
  if (coordination !== undefined && typeof coordination?.rateLimits?.take !== 'function')
    problems.add('coordination', 'must be a Coordination with rateLimits, such as redisCoordination(redis) from omnimedia/redis');
  const events = o.events as ProxyEventsOptions | false | undefined;
  if (events !== undefined && events !== false && (typeof events !== 'object' || events === null)) problems.add('events', 'must be false or { perIdentity, perProcess, maxStreamMs, heartbeatMs }');
  else if (events) {
    problems.count('events.perIdentity', events.perIdentity, 1);
    problems.count('events.perProcess', events.perProcess, 1);
    problems.ms('events.maxStreamMs', events.maxStreamMs, 1_000);
    problems.ms('events.heartbeatMs', events.heartbeatMs, 100);
    // The page's client takes a stream silent for 45 s for a dead one (waiting/task-stream.ts).
    if (typeof events.heartbeatMs === 'number' && events.heartbeatMs > MAX_HEARTBEAT_MS) problems.add('events.heartbeatMs', `must be at most ${MAX_HEARTBEAT_MS} (a page's client reopens a stream silent for 45 s)`);
  }
  const logger = o.logger as Logger | undefined;
  if (logger !== undefined && (typeof logger !== 'object' || logger === null || typeof logger.warn !== 'function' || typeof logger.error !== 'function'))
    problems.add('logger', 'must have warn and error methods, as console does');
  problems.done();
  const fetchImpl = o.fetch as Fetch | undefined;
  const redactor = createRedactor();
  return {
    authorize: o.authorize as ProxyOptions['authorize'],
    service: serviceOf(given, env, redactor),
    basePath: (basePath as string).replace(/\/$/, ''),
    allowedOrigins: origins,
    trustProxy: o.trustProxy === true,
    callbackURL: o.callbackURL as string | undefined,
    rateLimit,
    rateLimits: coordination?.rateLimits ?? new MemoryRateLimits(),
    coordination,
    events: events === false ? false : { ...EVENTS_DEFAULTS, ...stripUndefined(events ?? {}) },
    policy: o.policy as ProxyOptions['policy'],
    onSubmitted: o.onSubmitted as ProxyOptions['onSubmitted'],
    timeout: (o.timeout as number | undefined) ?? DEFAULT_PROXY_TIMEOUT_MS,
    idleTimeout: (o.idleTimeout as number | undefined) ?? DEFAULT_PROXY_IDLE_TIMEOUT_MS,
    // Looked up at call time, so a fetch patched after the proxy was made (MSW) is used.
    fetch: fetchImpl ?? ((input, init) => globalThis.fetch(input, init)),
    logger: createLogger(logger ?? console, 'warn', redactor),
  };
}
