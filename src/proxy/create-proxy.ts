/**
 * `createProxy`: the app's server route that lets a page use the whole client without the key.
 * Every request goes the same way: the route (one of the seven endpoints, or refused), the
 * origin (CSRF and CORS), `authorize`, the rate limit, the body checked as the client checks
 * it, `policy`, then one request to the service built from the base URL and the route alone,
 * whose answer is made safe before the page sees it.
 */
import { OmniMediaError, ValidationError } from '../errors.ts';
import { contentLength } from '../internal/content-length.ts';
import { readEnv } from '../internal/runtime.ts';
import { IMAGE_EDIT_RULE, IMAGE_GENERATE_RULE } from '../schemas/image-rules.ts';
import type { Rule } from '../schemas/rules.ts';
import { VIDEO_EDIT_RULE, VIDEO_GENERATE_RULE } from '../schemas/video-rules.ts';
import { parseInput } from '../validation/parse.ts';
import { ANSWER_HEADERS, jsonAnswer, ProxyRefusal, refusalAnswer } from './answers.ts';
import { nodeHandlerOf, type NodeProxyRequest, type NodeProxyResponse } from './node-adapter.ts';
import { resolveProxyOptions, type ProxyIdentity, type ProxyOperation, type ProxyOptions, type ProxySettings, type ProxySubmission, type ServiceSettings } from './options.ts';
import { checkOrigin, corsHeaders, preflightHeaders, requestHost } from './origin.ts';
import { pageBody, readJson, type PageBody } from './page-body.ts';
import { isRoute, routeOf, type Route } from './routes.ts';
import { forward, type UpstreamAnswer, type UpstreamSettings } from './upstream.ts';
import { checkUpload, uploadStream } from './upload.ts';
import { eventStream, OpenStreams, STREAM_HEADERS } from './events.ts';
import { TaskWatches } from './task-watch.ts';
import { MemoryTaskEvents } from '../coordination/memory.ts';
import { DEFAULT_MAX_POLLS_PER_SECOND } from '../options.ts';
import { TaskDurations } from '../waiting/durations.ts';
import { sharedScheduler } from '../waiting/wait-ports.ts';
import { multipartFraming } from '../uploads/streamed-body.ts';
import { errorText } from '../internal/error-text.ts';
import { callPort, PortTimeout } from '../internal/port-call.ts';
import { SUBMISSION_ANSWER } from '../schemas/answers.ts';
import { readAnswer } from '../schemas/tolerant.ts';

/**
 * Thrown by `authorize` or `policy` to refuse a request: the page gets 403 with this message
 * (a `PermissionDeniedError` in its client), and nothing is forwarded.
 *
 * @example
 * ```ts
 * const proxy = createProxy({
 *   authorize,
 *   policy: ({ identity, operation }) => {
 *     if (operation.startsWith('video') && identity.plan !== 'pro') throw new ProxyDenied('videos need the pro plan');
 *   },
 * });
 * ```
 */
export class ProxyDenied extends OmniMediaError {
  /** `'ProxyDenied'`, the class's name (kept through minification). */
  override name = 'ProxyDenied';

  constructor(message = 'refused by the app\u2019s policy') {
    super(message);
  }
}

/**
 * The proxy's two faces: `handler` for fetch-style servers (Next.js route handlers, Hono, Bun,
 * Deno, workers) and `nodeHandler` for `node:http`-style ones (Express, Fastify's raw request).
 *
 * @example
 * ```ts
 * export const GET = proxy.handler, POST = proxy.handler, OPTIONS = proxy.handler; // Next.js
 * app.use(proxy.nodeHandler);                                                       // Express
 * ```
 */
export interface OmniMediaProxy {
  /** `(request) => Promise<Response>`. A request outside `basePath` is a 404. */
  handler: (request: Request) => Promise<Response>;
  /** `(req, res, next?)`. A request outside `basePath` goes to `next` when given (Express), else is a 404. */
  nodeHandler: (req: NodeProxyRequest, res: NodeProxyResponse, next?: (error?: unknown) => void) => void;
}

const RULE: Record<'image_generation' | 'image_edit' | 'video_generation' | 'video_edit', Rule<Record<string, unknown>, unknown>> = {
  image_generation: IMAGE_GENERATE_RULE,
  image_edit: IMAGE_EDIT_RULE,
  video_generation: VIDEO_GENERATE_RULE,
  video_edit: VIDEO_EDIT_RULE,
};

/** A key a service could read as `callback_url` (after NFKC and lower-casing). */
const CALLBACK_KEY = /^[\s_-]*callback[\s_-]*url[\s_-]*$/;

/**
 * The bounds of a call into a hook or store of the app (`authorize`, `policy`, the rate-limit
 * store) through `callPort`: raced against the page's going away and `timeout`, whatever it does
 * (hang, throw synchronously, an odd thenable). Its failure, or its silence past `timeout`, is
 * `refuse`d: nothing is forwarded (a `ProxyDenied` is a 403).
 */
function hookBounds(settings: ProxySettings, request: Request, name: string, refuse: () => ProxyRefusal) {
  return {
    timeoutMs: settings.timeout,
    signal: request.signal,
    fallback: (why: unknown): never => {
      if (why instanceof ProxyDenied) throw new ProxyRefusal(403, 'denied', why.message);
      settings.logger.error(`proxy: ${name} ${why instanceof PortTimeout ? 'did not answer' : 'threw'}, request refused: ${errorText(why)}`);
      throw refuse();
    },
  };
}

/** `authorize`, run first: an identity, or the refusal (401 none, 403 `ProxyDenied`, 500 a failure). */
async function identify(settings: ProxySettings, request: Request): Promise<ProxyIdentity> {
  const failed = () => new ProxyRefusal(500, 'authorize_failed', 'the app could not check who asks: nothing was forwarded');
  const identity = await callPort(() => settings.authorize(request), hookBounds(settings, request, 'authorize', failed));
  if (!identity) throw new ProxyRefusal(401, 'unauthorized', 'who asks is unknown (not signed in?): nothing was forwarded');
  const { id } = identity as Partial<ProxyIdentity>;
  if ((typeof id !== 'string' || id === '') && (typeof id !== 'number' || !Number.isFinite(id))) {
    settings.logger.error('proxy: authorize returned an identity without an id (a string or a number): request refused');
    throw new ProxyRefusal(500, 'authorize_failed', 'the app could not check who asks: nothing was forwarded');
  }
  return identity;
}

/** The identity's rate limit for the operation's kind: 429 with `Retry-After` past it. */
async function limit(settings: ProxySettings, request: Request, operation: ProxyOperation, identity: ProxyIdentity): Promise<void> {
  const bucket = operation === 'task_query' || operation === 'task_events' ? 'queries' : operation.endsWith('_upload') ? 'uploads' : 'submissions';
  const rule = settings.rateLimit[bucket];
  if (!rule) return;
  const unavailable = () => new ProxyRefusal(503, 'rate_limit_unavailable', 'the rate limit could not be checked: nothing was forwarded', { headers: { 'retry-after': '1' } });
  const decision = await callPort(() => settings.rateLimits.take(`${bucket}:${String(identity.id)}`, rule.limit, rule.windowMs), hookBounds(settings, request, 'the rate limit store', unavailable));
  if (decision?.allowed === true) return;
  if (decision?.allowed !== false) {
    settings.logger.error('proxy: the rate limit store answered something that is not a decision, request refused');
    throw unavailable();
  }
  // A store's own number, kept within the window: never NaN or a wait longer than the rule's.
  const retryAfterMs = Math.min(Math.max(1, Number(decision.retryAfterMs) || rule.windowMs), rule.windowMs);
  throw new ProxyRefusal(429, 'rate_limited', `too many ${bucket} for this user: at most ${rule.limit} in ${rule.windowMs} ms`, {
    headers: { 'retry-after': String(Math.ceil(retryAfterMs / 1000)), 'retry-after-ms': String(Math.ceil(retryAfterMs)) },
  });
}

/** `policy`, given a copy of the checked parameters: `false` or `ProxyDenied` is a 403. */
async function allow(settings: ProxySettings, request: Request, identity: ProxyIdentity, operation: ProxyOperation, params: Record<string, unknown>): Promise<void> {
  if (!settings.policy) return;
  const { policy } = settings;
  const failed = () => new ProxyRefusal(500, 'policy_failed', 'the app\u2019s policy failed: nothing was forwarded');
  const verdict = await callPort(() => policy({ identity, operation, params: structuredClone(params), request }), hookBounds(settings, request, 'policy', failed));
  if (verdict === false) throw new ProxyRefusal(403, 'denied', 'refused by the app\u2019s policy');
}

/** ms the page's answer waits at most for `onSubmitted` (less when `timeout` is less). */
const MAX_ON_SUBMITTED_WAIT_MS = 5_000;

/**
 * `onSubmitted`, once per submission the service accepted (a 2xx), before the page gets its
 * task: but a hook that fails or hangs costs the page nothing. Past `timeout` (5 s at most: the
 * page's client is waiting on the same clock, and a submission it gave up on is not retried)
 * the page gets its task while the hook goes on; its failure is logged whenever it comes. The
 * task id is read as the page's client reads it (a whole number is its decimal string); an
 * accepted answer without a usable one is logged as an error, since the task may be billed.
 */
async function runOnSubmitted(settings: ProxySettings, identity: ProxyIdentity, operation: ProxyOperation, answer: UpstreamAnswer): Promise<void> {
  const hook = settings.onSubmitted;
  if (!hook) return;
  const read = readAnswer(answer.body, SUBMISSION_ANSWER);
  if (!('value' in read)) {
    const problems = read.problems.map((p) => `${p.field || 'the answer'} ${p.message}`).join('; ');
    settings.logger.error(`proxy: the service accepted a submission (${operation}) of ${String(identity.id)} (${answer.status}) without a usable task id (${problems}): onSubmitted was not called, and the task may be billed`);
    return;
  }
  const submission: ProxySubmission = { identity, operation, task_id: read.value.task_id as string };
  const wait = Math.min(settings.timeout, MAX_ON_SUBMITTED_WAIT_MS);
  const threw = (error: unknown) => settings.logger.error(`proxy: onSubmitted threw for task ${submission.task_id}: ${errorText(error)}`);
  await callPort(() => hook(submission), {
    timeoutMs: wait,
    fallback: (why) => {
      if (why instanceof PortTimeout) settings.logger.warn(`proxy: onSubmitted still running after ${wait} ms for task ${submission.task_id}: the page got its task`);
      else threw(why);
    },
    late: threw,
  });
}

/**
 * What the upstream requests run with, once the key and base URL are known (see
 * `ProxySettings.service`): until then every request that would be forwarded is a 500, and the
 * log says what is missing. The page is told nothing of it.
 */
function upstreamOf(settings: ProxySettings): UpstreamSettings {
  let service: ServiceSettings;
  try {
    service = settings.service();
  } catch (error) {
    settings.logger.error(`proxy: request refused, nothing forwarded: ${errorText(error)}`);
    throw new ProxyRefusal(500, 'proxy_not_configured', 'the proxy is not configured: nothing was forwarded');
  }
  return { ...service, fetch: settings.fetch, timeout: settings.timeout, logger: settings.logger };
}

/** A submission's JSON body as the client checks it, `callback_url` the app's (or none). */
async function submissionBody(settings: ProxySettings, route: Route, request: Request, read: () => Promise<Uint8Array | undefined>): Promise<Record<string, unknown>> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(?:;\s*charset="?utf-8"?\s*)?$/i.test(type)) {
    // What a cross-site HTML form can send without a preflight: never a submission.
    if (/^(?:text\/plain|application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type) || type === '')
      throw new ProxyRefusal(403, 'form_post', `a form-style POST (${type || 'no content type'}) is refused: submissions are application/json`);
    throw new ProxyRefusal(415, 'unsupported_media_type', `submissions are application/json (got ${type})`);
  }
  const body = await readJson(read, contentLength(request.headers.get('content-length')));
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ProxyRefusal(400, 'invalid_request', 'the body must be a JSON object');
  // The service must not POST to an address a visitor chose, under any spelling it may read as
  // callback_url: many JSON readers match keys case-insensitively (Go's, folding U+212A to k;
  // ASP.NET Core's), others take a camelCase alias.
  const params = Object.fromEntries(Object.entries(body).filter(([key]) => !CALLBACK_KEY.test(key.normalize('NFKC').toLowerCase())));
  let checked: Record<string, unknown>;
  try {
    checked = parseInput(RULE[route.operation as keyof typeof RULE], params, `${route.operation} body`);
  } catch (error) {
    if (error instanceof ValidationError) throw new ProxyRefusal(400, 'invalid_request', error.message, { issues: error.issues });
    throw error;
  }
  return settings.callbackURL ? { ...checked, callback_url: settings.callbackURL } : checked;
}

/** Everything after the origin check: who asks, the limit, the body, the policy, the one upstream request. */
async function proceed(settings: ProxySettings, route: Route, request: Request, page: PageBody | undefined): Promise<UpstreamAnswer> {
  const identity = await identify(settings, request);
  const { operation } = route;
  await limit(settings, request, operation, identity);
  const upstream = upstreamOf(settings);
  if (operation === 'task_query' || !page) {
    // No body to read: the page going away is all that ends it early.
    await allow(settings, request, identity, operation, { task_id: route.taskId });
    return forward(upstream, { route, signal: request.signal });
  }
  if (operation === 'image_upload' || operation === 'video_upload') {
    const upload = await checkUpload(operation === 'image_upload' ? 'image' : 'video', request.headers, page.read);
    await allow(settings, request, identity, operation, { filename: upload.filename, content_type: upload.type.mediaType });
    const framing = await multipartFraming(upload.filename, upload.type.mediaType);
    let refused: ProxyRefusal | undefined;
    const timedOut = () => new ProxyRefusal(504, 'upstream_timeout', `the service did not take the upload or answer within ${settings.timeout} ms`);
    let answer: UpstreamAnswer;
    try {
      answer = await forward(upstream, {
        route,
        contentType: framing.contentType,
        body: (exchange) => uploadStream(upload, framing, exchange, settings.timeout, timedOut, (refusal) => (refused = refusal)),
        signal: page.exchange.signal,
      });
    } catch (error) {
      throw refused ?? error;
    }
    // A runtime may have ended the request at the refusal and passed the service's answer on.
    if (refused) throw refused;
    return answer;
  }
  const body = await submissionBody(settings, route, request, page.read);
  await allow(settings, request, identity, operation, body);
  const answer = await forward(upstream, { route, contentType: 'application/json', body: JSON.stringify(body), signal: page.exchange.signal });
  if (answer.status >= 200 && answer.status < 300) await runOnSubmitted(settings, identity, operation, answer);
  return answer;
}

/** The watches of one proxy's event streams, on the fleet's shared state when it has one. */
function watchesOf(settings: ProxySettings): TaskWatches {
  const { coordination } = settings;
  return new TaskWatches({
    read: (taskId, signal) => forward(upstreamOf(settings), { route: { operation: 'task_query', path: `v1/tasks/${encodeURIComponent(taskId)}`, method: 'GET', preflight: false, taskId }, signal }),
    scheduler: sharedScheduler(coordination ?? {}, DEFAULT_MAX_POLLS_PER_SECOND, settings.logger),
    events: coordination?.events ?? new MemoryTaskEvents(),
    durations: new TaskDurations(coordination?.durations, settings.logger),
    leases: coordination?.leases,
    redactor: () => settings.service().redactor,
    // A callback reaches a watch only on the fleet's bus (the app's client handles it): without one, poll as .wait() does.
    callbacks: settings.callbackURL !== undefined && coordination !== undefined,
    logger: settings.logger,
  });
}

/**
 * A task's events: who asks, the rate limit (a stream is a task read), the policy, a place among
 * the open streams, then the stream itself (events.ts). The service must be configured: the
 * watch reads through it.
 */
async function streamEvents(settings: ProxySettings, route: Route, request: Request, watches: () => TaskWatches, streams: OpenStreams, cors: Record<string, string>): Promise<Response> {
  const identity = await identify(settings, request);
  await limit(settings, request, route.operation, identity);
  upstreamOf(settings);
  await allow(settings, request, identity, route.operation, { task_id: route.taskId });
  const release = streams.take(identity);
  if (request.signal.aborted) {
    release();
    throw new ProxyRefusal(499, 'client_closed', 'the page went away');
  }
  const limits = settings.events as Exclude<ProxySettings['events'], false>;
  return new Response(eventStream(watches(), route.taskId as string, limits, request, release), { status: 200, headers: { ...STREAM_HEADERS, ...cors } });
}

/**
 * Whether the runtime closes a connection on the request's unread bytes as soon as the answer
 * is written: Cloudflare's workerd does (`navigator.userAgent` is `Cloudflare-Workers` there),
 * and a page still sending then reads a reset, not the refusal. There the rest of a refused
 * body is dropped (`linger`) before the answer; elsewhere the answer goes at once (a 413
 * at the moment the limit is passed) and the rest is dropped behind it.
 */
const drainsBeforeAnswer = () => (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === 'Cloudflare-Workers';

/**
 * Mount the service on your server for your pages: `new OmniMedia({ proxyURL })` in the page
 * then has the whole client, and the key stays here. Only the spec's seven endpoints are
 * forwarded, only to `baseURL`, only after `authorize` (required), the origin check, the rate
 * limit, the client's own validation and `policy`. See the guide [Browser apps](https://github.com/omnimedia/omnimedia/blob/main/docs/browser-apps.md).
 *
 * @example
 * ```ts
 * // app/api/omnimedia/[...path]/route.ts (Next.js)
 * import { createProxy } from 'omnimedia/proxy';
 * const proxy = createProxy({ basePath: '/api/omnimedia', authorize: async (request) => (await getSession(request)) ?? null });
 * export const GET = proxy.handler, POST = proxy.handler, OPTIONS = proxy.handler;
 * ```
 */
export function createProxy(options: ProxyOptions): OmniMediaProxy {
  const settings = resolveProxyOptions(options, readEnv);
  const notFound = () => refusalAnswer(new ProxyRefusal(404, 'not_found', 'not an endpoint of this proxy'));
  // Made at the first stream: a proxy that streams nothing runs no scheduler and holds no watch.
  let watches: TaskWatches | undefined;
  const streams = settings.events ? new OpenStreams(settings.events) : undefined;

  /**
   * Answer one request. `lingers`: after a refusal, read and drop what the page still sends
   * (for a while: `linger`), so that its connection is not reset on unread bytes: `handler`
   * does (in the background, or before answering where `DRAINS_BEFORE_ANSWER`),
   * `nodeHandler` lingers after writing.
   */
  const serve = async (method: string, target: string, build: () => Request, lingers: boolean): Promise<Response | undefined> => {
    const route = routeOf(method, target, settings.basePath);
    if (route === undefined) return undefined;
    if (!isRoute(route)) return refusalAnswer(new ProxyRefusal(route.status, route.code, route.message, route.allow ? { headers: { allow: route.allow } } : {}));
    if (route.operation === 'task_events' && !streams) return notFound();
    let cors: Record<string, string> = {};
    let request: Request;
    let page: PageBody | undefined;
    try {
      request = build();
    } catch {
      return refusalAnswer(new ProxyRefusal(400, 'bad_target', 'the request cannot be read (its Host header?)'));
    }
    try {
      const verdict = checkOrigin(request.headers, method, requestHost(request.headers, settings.trustProxy), settings.allowedOrigins);
      if (!verdict.allowed) throw new ProxyRefusal(403, 'cross_site', `refused: ${verdict.reason}`);
      if (route.preflight) {
        if (!verdict.corsOrigin || request.headers.get('access-control-request-method') !== route.method)
          throw new ProxyRefusal(403, 'preflight_refused', `a preflight that is not from an allowed origin for ${route.method}`);
        return new Response(null, { status: 204, headers: { ...ANSWER_HEADERS, ...preflightHeaders(verdict.corsOrigin, request.headers.get('access-control-request-headers')) } });
      }
      cors = corsHeaders(verdict.corsOrigin);
      if (route.operation === 'task_events') return await streamEvents(settings, route, request, () => (watches ??= watchesOf(settings)), streams as OpenStreams, cors);
      page = route.method === 'POST' ? pageBody(request.body, request.signal, settings.idleTimeout) : undefined;
      const answer = await proceed(settings, route, request, page);
      return jsonAnswer(answer.status, answer.body, { ...answer.headers, ...cors }, answer.text);
    } catch (error) {
      if (lingers) {
        const dropping = page?.drop();
        if (drainsBeforeAnswer()) await dropping;
      }
      if (error instanceof ProxyRefusal) return refusalAnswer(error, cors);
      // The page went away (fetch-style servers abort its signal with reasons of their own).
      if ((error instanceof DOMException && error.name === 'AbortError') || request.signal.aborted)
        return refusalAnswer(new ProxyRefusal(499, 'client_closed', 'the page went away'));
      settings.logger.error(`proxy: ${method} ${route.path}: ${errorText(error)}`);
      return refusalAnswer(new ProxyRefusal(500, 'proxy_error', 'the proxy failed: nothing more was forwarded'), cors);
    } finally {
      page?.exchange.close();
    }
  };

  return {
    handler: async (request) => {
      if (!URL.canParse(request.url)) return refusalAnswer(new ProxyRefusal(400, 'bad_target', 'the request URL cannot be read'));
      // Only the path of the runtime's URL is read. Its host is the framework's (Next.js names
      // localhost whatever the browser asked), and so may its query be (Next's edge runtime adds
      // the catch-all segments: ?path=v1&path=tasks&path=...): neither chooses anything, and
      // neither is forwarded (the upstream URL is the base URL and the endpoint).
      return (await serve(request.method, new URL(request.url).pathname, () => request, true)) ?? notFound();
    },
    nodeHandler: nodeHandlerOf((method, target, build) => serve(method, target, build, false), notFound),
  };
}
