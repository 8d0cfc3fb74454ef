// The mock service: state (uploads, tasks, scenario) behind one fetch handler.
import { CallbackSender, DEFAULT_CALLBACK_RETRY_DELAYS, type CallbackDelivery } from './callbacks.ts';
import { now, schedule } from './clock.ts';
import { RequestProblem } from './request-problem.ts';
import { errorResponse, preflightResponse } from './responses.ts';
import { PngCache } from './results.ts';
import { RateWindow } from './rate-limit.ts';
import * as routes from './routes.ts';
import { CANNED_STATUSES, Scenario, type EndpointGroup } from './scenario.ts';
import { MockTask, type PlannedAttempt, type TaskInit, type TaskKind } from './tasks.ts';
import { UploadStore, type StoredUpload } from './uploads.ts';
import { DEFAULT_DURATIONS, drawn, type MockDurations, type MockRequestRecord, type MockServiceOptions } from './service-options.ts';
import { appendBounded, dropOldest } from '../internal/bounded-map.ts';
import { errorText } from '../internal/error-text.ts';

const PROVIDERS = ['omni-mock-1', 'omni-mock-2', 'omni-mock-3'];
// Bounded like the proxy: the last 1,000 requests and deliveries, 10,000 tasks (older: 404).
const [MAX_LOG, MAX_TASKS] = [1000, 10_000];

type Route = { group: EndpointGroup | 'files'; auth: boolean; run: (request: Request, root: string) => Promise<Response> | Response };

let taskCounter = 0;

/** A path segment decoded; a malformed escape stays as sent (and matches no task). */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function bearerToken(request: Request | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request?.headers.get('authorization') ?? '')?.[1];
}

/**
 * The whole service as a fetch handler with state. Make one with {@link createMockService};
 * plug it into MSW (`omnimedia/testing/msw`), a local server ({@link startMockServer}) or a
 * client's `fetch` option.
 *
 * @example
 * ```ts
 * const mock = createMockService();
 * const client = new OmniMedia({ apiKey: 'test', baseURL: mock.baseURL, fetch: mock.fetch });
 * mock.rateLimitNext(1, { retryAfter: 1 });
 * await client.images.generate({ model: 'omni-image', prompt: 'a cat' }); // retried after the 429
 * ```
 */
export class MockService {
  /** The address the mock stands for, without a trailing slash. */
  readonly baseURL: string;
  readonly #basePath: string;
  readonly #options: MockServiceOptions;
  #durations: MockDurations;
  readonly #uploads = new UploadStore();
  readonly #tasks = new Map<string, MockTask>();
  readonly #scenario = new Scenario();
  readonly #pngs = new PngCache();
  readonly #callbackTimers = new Map<string, () => void>();
  readonly #deliveries: CallbackDelivery[] = [];
  readonly #requests: MockRequestRecord[] = [];
  readonly #rate: RateWindow | undefined; // with submissionsPerSecond
  readonly #sender: CallbackSender;

  constructor(options: MockServiceOptions = {}) {
    const base = options.baseURL ?? 'https://api.omnimedia.test';
    if (!URL.canParse(base)) throw new TypeError(`createMockService: baseURL must be an absolute URL (got "${base}")`);
    this.baseURL = base.replace(/\/+$/, '');
    this.#basePath = new URL(this.baseURL).pathname.replace(/\/+$/, '');
    this.#options = options;
    this.#durations = { ...DEFAULT_DURATIONS, ...options.durations };
    this.#rate = options.submissionsPerSecond === undefined ? undefined : new RateWindow(options.submissionsPerSecond);
    this.#sender = new CallbackSender({
      fetch: () => this.#options.fetch ?? globalThis.fetch,
      retryDelays: () => this.#options.callbackRetryDelays ?? DEFAULT_CALLBACK_RETRY_DELAYS,
      onDelivery: (delivery) => appendBounded(this.#deliveries, delivery, MAX_LOG),
    });
  }

  /** The fetch handler: answers any request the way the service would. */
  readonly handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname.startsWith(this.#basePath) ? url.pathname.slice(this.#basePath.length) || '/' : url.pathname;
    const response = await this.#route(request, path, `${url.origin}${this.#basePath}`);
    appendBounded(this.#requests, { method: request.method, path, status: response.status, at: now() }, MAX_LOG);
    return response;
  };

  /** The handler as a drop-in `fetch`: `new OmniMedia({ baseURL: mock.baseURL, fetch: mock.fetch })`, no network. */
  readonly fetch = (input: Request | string | URL, init?: RequestInit): Promise<Response> =>
    this.handle(input instanceof Request && init === undefined ? input : new Request(input, init));

  async #route(request: Request, path: string, root: string): Promise<Response> {
    if (request.method === 'OPTIONS') return preflightResponse(request);
    const match = this.#match(path);
    if (!match) return errorResponse(404, 'not_found', `no route for ${path}`);
    const route = match[request.method === 'HEAD' ? 'GET' : request.method];
    if (!route) {
      return errorResponse(405, 'method_not_allowed', `${request.method} is not allowed on ${path}`, {
        headers: { allow: Object.keys(match).join(', ') },
      });
    }
    try {
      if (route.auth) {
        const problem = this.#authProblem(request);
        if (problem) return errorResponse(401, 'invalid_api_key', problem);
      }
      if (route.group !== 'files') {
        const injected = this.#scenario.take(route.group);
        if (injected) return errorResponse(injected.status, injected.code, injected.message, { headers: injected.headers });
        const limited = route.group === 'submissions' ? this.#rate?.refusal(now()) : undefined;
        if (limited) return limited;
      }
      return await route.run(request, root);
    } catch (error) {
      if (error instanceof RequestProblem) {
        const code = error.status === 403 ? 'model_not_allowed' : error.status === 413 ? 'too_large' : 'invalid_request';
        return errorResponse(error.status, code, error.message, { param: error.param });
      }
      return errorResponse(500, 'internal_error', `mock: ${errorText(error)}`);
    }
  }

  #match(path: string): Record<string, Route> | undefined {
    const ctx = (root: string, request?: Request): routes.RouteContext => ({
      uploads: this.#uploads,
      pngs: this.#pngs,
      root,
      createTask: (init) => this.#createTask({ ...init, root }),
      findTask: (id) => this.#tasks.get(id),
      checkScope: (model) => {
        const scope = this.#options.modelScopes?.[bearerToken(request) ?? ''];
        if (scope && !scope.includes(model))
          throw new RequestProblem(`the key's model scope does not include ${model}`, 'model', 403);
      },
    });
    const submit = (run: (request: Request, ctx: routes.RouteContext) => Promise<Response>): Record<string, Route> => ({
      POST: { group: 'submissions', auth: true, run: (request, root) => run(request, ctx(root, request)) },
    });
    switch (path) {
      case '/v1/images/generations':
        return submit(routes.imageGeneration);
      case '/v1/images/edits':
        return submit(routes.imageEdit);
      case '/v1/video/generate':
        return submit(routes.videoGeneration);
      case '/v1/video/edits':
        return submit(routes.videoEdit);
      case '/v1/uploads/images':
      case '/v1/uploads/videos': {
        const kind = path.endsWith('images') ? 'image' : 'video';
        return { POST: { group: 'uploads', auth: true, run: (request, root) => routes.upload(request, ctx(root), kind) } };
      }
    }
    const task = /^\/v1\/tasks\/([^/]+)$/.exec(path);
    // The task query needs no key, and ignores an Authorization header (spec 4.7).
    if (task) return { GET: { group: 'tasks', auth: false, run: (_, root) => routes.taskQuery(safeDecode(task[1]!), ctx(root)) } };
    const uploaded = /^\/files\/uploads\/([^/]+)\/[^/]+$/.exec(path);
    if (uploaded) return { GET: { group: 'files', auth: false, run: (request, root) => routes.uploadedFile(uploaded[1]!, ctx(root), request.method) } };
    const result = /^\/files\/results\/([^/]+)\/([^/]+)$/.exec(path);
    if (result)
      return { GET: { group: 'files', auth: false, run: (request, root) => routes.resultFile(result[1]!, result[2]!, ctx(root), request.method) } };
    return undefined;
  }

  #authProblem(request: Request): string | undefined {
    if (!request.headers.get('authorization')) return 'missing API key: send Authorization: Bearer <API_KEY>';
    const token = bearerToken(request);
    if (!token) return 'malformed Authorization header: expected "Bearer <API_KEY>"';
    const keys = this.#options.apiKeys;
    if (keys && !keys.includes(token)) return 'invalid or expired API key';
    return undefined;
  }

  #createTask(init: Omit<TaskInit, 'id' | 'createdAtMs' | 'pendingMs' | 'attempts'>): MockTask {
    taskCounter += 1;
    const id = `task_${taskCounter.toString(36)}${Math.random().toString(36).slice(2, 10)}`;
    const duration = this.#attemptDuration(init.kind);
    const script = this.#scenario.nextTaskScript();
    const attempts: PlannedAttempt[] = [];
    const failed = script ? Math.max(1, script.failedAttempts) : 0;
    for (let i = 0; i < failed; i++)
      attempts.push({ provider: PROVIDERS[i % PROVIDERS.length]!, durationMs: duration, outcome: 'failed', failReason: script?.reason });
    if (!script?.failTask) attempts.push({ provider: PROVIDERS[failed % PROVIDERS.length]!, durationMs: duration, outcome: 'completed' });
    const task = new MockTask({ ...init, id, createdAtMs: now(), pendingMs: drawn(this.#durations.pending), attempts });
    this.#tasks.set(id, task);
    dropOldest(this.#tasks, MAX_TASKS); // a task dropped still gets its callback (its timer holds it)
    this.#scheduleCallback(task);
    return task;
  }

  #attemptDuration(kind: TaskKind): number {
    const d = this.#durations;
    return drawn({ image_generation: d.image, image_edit: d.imageEdit, video_generation: d.video, video_edit: d.videoEdit }[kind]);
  }

  /** Arm (or re-arm) the completion callback of a task for the moment it ends. */
  #scheduleCallback(task: MockTask): void {
    const url = task.init.callbackUrl;
    if (url === undefined) return;
    this.#callbackTimers.get(task.id)?.();
    const fire = () => {
      if (!task.isTerminal()) {
        this.#callbackTimers.set(task.id, schedule(fire, task.endsAt - now()));
        return;
      }
      this.#callbackTimers.delete(task.id);
      this.#sender.send(task.id, url, task.result());
    };
    this.#callbackTimers.set(task.id, schedule(fire, task.endsAt - now()));
  }

  // ---- Scenario controls -------------------------------------------------------------
  /**
   * The next submitted task's first attempt (or first `attempts`) fails with `reason`, then a
   * new attempt at another provider succeeds: the task ends `completed` with
   * `attempt_count` > 1 and `total_elapsed_s` > `elapsed_s`.
   */
  failNextAttempt(reason = 'provider_timeout', options: { attempts?: number } = {}): this {
    this.#scenario.taskScripts.push({ failedAttempts: options.attempts ?? 1, reason, failTask: false });
    return this;
  }

  /** The next submitted task fails: every attempt (`attempts`, default 2) ends `failed` with `reason`. */
  failNextTask(reason = 'provider_error', options: { attempts?: number } = {}): this {
    this.#scenario.taskScripts.push({ failedAttempts: options.attempts ?? 2, reason, failTask: true });
    return this;
  }

  /** End a running task now as `failed` with `reason` (its callback, if any, is sent now). */
  failTask(taskId: string, reason = 'provider_error'): this {
    return this.#endTask(taskId, 'failed', reason);
  }

  /**
   * End a running task now as `completed`, with its results (its callback, if any, is sent now):
   * a test chooses the moment a task ends instead of racing its duration.
   */
  completeTask(taskId: string): this {
    return this.#endTask(taskId, 'completed');
  }

  #endTask(taskId: string, outcome: 'completed' | 'failed', reason?: string): this {
    const task = this.#tasks.get(taskId);
    if (!task) throw new Error(`mock: no task ${taskId}`);
    task.endNow(outcome, reason);
    this.#scheduleCallback(task);
    return this;
  }

  /** The next `count` submissions get 429 with `Retry-After: retryAfter` (seconds, default 1). */
  rateLimitNext(count = 1, options: { retryAfter?: number; on?: readonly EndpointGroup[] } = {}): this {
    return this.#inject(429, options.on ?? ['submissions'], count, { 'retry-after': String(options.retryAfter ?? 1) });
  }

  /** The next `count` submissions get 503 (no provider currently available). */
  unavailableNext(count = 1, options: { on?: readonly EndpointGroup[]; retryAfter?: number } = {}): this {
    return this.#inject(503, options.on ?? ['submissions'], count, options.retryAfter === undefined ? {} : { 'retry-after': String(options.retryAfter) });
  }

  /** Every request (submissions, uploads and task queries by default) gets 500 until {@link clearScenario}. */
  internalErrorAlways(options: { on?: readonly EndpointGroup[] } = {}): this {
    return this.#inject(500, options.on ?? ['submissions', 'uploads', 'tasks'], Number.POSITIVE_INFINITY);
  }

  /**
   * Answer 401 (key invalid or expired), 402 (insufficient balance) or 403 (model outside the
   * key's scope) to submissions and uploads: the next `count`, or all until cleared.
   */
  forceStatus(status: 401 | 402 | 403, options: { count?: number; on?: readonly EndpointGroup[] } = {}): this {
    return this.#inject(status, options.on ?? ['submissions', 'uploads'], options.count ?? Number.POSITIVE_INFINITY);
  }

  #inject(status: keyof typeof CANNED_STATUSES, on: readonly EndpointGroup[], remaining: number, headers: Record<string, string> = {}): this {
    this.#scenario.inject({ status, ...CANNED_STATUSES[status], on, remaining, headers });
    return this;
  }

  /** Change phase lengths for tasks submitted from now on. */
  setDurations(durations: Partial<MockDurations>): this {
    this.#durations = { ...this.#durations, ...durations };
    return this;
  }

  /** Drop every scenario control not yet consumed. */
  clearScenario(): this {
    this.#scenario.clear();
    return this;
  }

  /** Back to a fresh mock: no tasks, uploads, deliveries, controls; durations as created. */
  reset(): this {
    this.close();
    this.#tasks.clear();
    this.#uploads.clear();
    this.#pngs.clear();
    this.#scenario.clear();
    this.#deliveries.length = 0;
    this.#requests.length = 0;
    this.#rate?.clear();
    this.#durations = { ...DEFAULT_DURATIONS, ...this.#options.durations };
    return this;
  }

  /** Stop pending callback timers and retries (tasks keep their state). */
  close(): void {
    for (const cancel of this.#callbackTimers.values()) cancel();
    this.#callbackTimers.clear();
    this.#sender.cancelAll();
  }

  // ---- Inspection ---------------------------------------------------------------------
  /** A task as the task query would return it now, or `undefined`. */
  task(taskId: string): Record<string, unknown> | undefined {
    return this.#tasks.get(taskId)?.result();
  }

  /** Every task (the last 10,000), as the task query would return it now, oldest first. */
  tasks(): Record<string, unknown>[] {
    return [...this.#tasks.values()].map((task) => task.result());
  }

  /** Every upload record (the last 10,000, including expired ones). */
  uploads(): Record<string, unknown>[] {
    return this.#uploads.all().map((upload: StoredUpload) => upload.record);
  }

  /** Every callback delivery try so far (the last 1,000), oldest first. */
  get callbackDeliveries(): readonly CallbackDelivery[] {
    return this.#deliveries;
  }

  /** The requests answered so far (the last 1,000), oldest first. Empty it with {@link clearRequests}. */
  get requests(): readonly MockRequestRecord[] {
    return this.#requests;
  }

  /**
   * Empty the request log, keeping the tasks, uploads and controls (`reset()` forgets them all).
   *
   * @example
   * ```ts
   * await client.images.generate({ model: 'omni-image', prompt: 'a fox' });
   * mock.clearRequests();
   * await client.tasks.retrieve(taskId);
   * expect(mock.requests).toHaveLength(1);
   * ```
   */
  clearRequests(): this {
    this.#requests.length = 0;
    return this;
  }

  /** Resolves when no callback delivery is in flight (retries waiting on a timer do not count). */
  callbacksSettled(): Promise<void> {
    return this.#sender.settled();
  }
}

/**
 * A faithful simulation of the service, as a fetch handler with state.
 *
 * @example
 * ```ts
 * import { OmniMedia } from 'omnimedia';
 * import { createMockService } from 'omnimedia/testing';
 *
 * const mock = createMockService({ durations: { video: 2_000 } });
 * const client = new OmniMedia({ apiKey: 'test', baseURL: mock.baseURL, fetch: mock.fetch });
 * mock.failNextAttempt('provider_timeout');
 * const video = await client.videos.generate({ prompt: 'a fox' }).wait();
 * video.attempt_count; // 2
 * ```
 */
export function createMockService(options: MockServiceOptions = {}): MockService {
  return new MockService(options);
}
