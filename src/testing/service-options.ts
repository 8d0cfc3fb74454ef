// The mock service's options and the records it keeps, apart from its machinery (service.ts).

/**
 * A phase's length in ms: always the same, or `[min, max]`, drawn anew for each task (uniformly).
 *
 * @example
 * ```ts
 * const image: MockDuration = [2_000, 10_000]; // each image task takes 2 to 10 s
 * ```
 */
export type MockDuration = number | readonly [min: number, max: number];

/** A phase's length for one task: the number, or one drawn uniformly from `[min, max]`. */
export function drawn(duration: MockDuration): number {
  return typeof duration === 'number' ? duration : Math.round(duration[0] + Math.random() * (duration[1] - duration[0]));
}

/**
 * How long each phase of a task takes, in ms of the mock's clock.
 *
 * @example
 * ```ts
 * const durations: Partial<MockDurations> = { pending: 100, image: [500, 2_000] };
 * const mock = createMockService({ durations });
 * ```
 */
export interface MockDurations {
  /** From submission to the first attempt (`pending`). Default 1,000. */
  pending: MockDuration;
  /** One attempt of an image generation. Default 4,000. */
  image: MockDuration;
  /** One attempt of an image edit ("editing can take longer than generation"). Default 6,000. */
  imageEdit: MockDuration;
  /** One attempt of a video generation. Default 10,000. */
  video: MockDuration;
  /** One attempt of a video edit. Default 10,000. */
  videoEdit: MockDuration;
}

/**
 * The mock's phase lengths when none are given, in ms: pending 1 s, image 4 s, image edit 6 s, video and video edit 10 s.
 *
 * @example
 * ```ts
 * const mock = createMockService({ durations: { ...DEFAULT_DURATIONS, video: 1_000 } });
 * ```
 */
export const DEFAULT_DURATIONS: Readonly<MockDurations> = { pending: 1000, image: 4000, imageEdit: 6000, video: 10_000, videoEdit: 10_000 };

/**
 * Options of {@link createMockService}.
 *
 * @example
 * ```ts
 * const mock = createMockService({ apiKeys: ['sk-test'], durations: { image: 500 }, callbackRetryDelays: [] });
 * ```
 */
export interface MockServiceOptions {
  /**
   * The address the mock stands for. Its path (if any) is the prefix of every route; with MSW
   * it is also the address the handlers intercept. Default `https://api.omnimedia.test`.
   */
  baseURL?: string;
  /** Keys the mock accepts. Default: any non-empty `Bearer` token. */
  apiKeys?: readonly string[];
  /**
   * Keys with an explicit model scope (spec 5.2): a submission for a model outside its key's
   * list gets 403. Keys not listed have the dynamic scope and may call any model.
   */
  modelScopes?: Readonly<Record<string, readonly string[]>>;
  /** Phase lengths; see {@link MockDurations}. */
  durations?: Partial<MockDurations>;
  /**
   * Submissions admitted per second, in a sliding one-second window, as a service's rate limit:
   * one more gets 429 with `Retry-After` (whole seconds) and `retry-after-ms` (when the oldest
   * of the window leaves it). Default: no limit.
   */
  submissionsPerSecond?: number;
  /** Waits between callback delivery tries, ms. Default 1 s, 2 s, 4 s, 8 s, 16 s. `[]`: no retries. */
  callbackRetryDelays?: readonly number[];
  /**
   * The `fetch` callbacks are POSTed with. Default: `globalThis.fetch` at the time of sending
   * (under MSW that is MSW's, so a callback URL can be an MSW handler too).
   */
  fetch?: typeof globalThis.fetch;
}

/**
 * A request the mock answered, for assertions.
 *
 * @example
 * ```ts
 * const posts = mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/images/generations');
 * expect(posts).toHaveLength(1); // a submission is never sent twice
 * ```
 */
export interface MockRequestRecord {
  /** The HTTP method, e.g. `POST`. */
  method: string;
  /** The path below the base URL, e.g. `/v1/tasks/task_1`. */
  path: string;
  /** The status the mock answered with. */
  status: number;
  /** ms since the epoch, by the mock's clock. */
  at: number;
}
