/**
 * telemetry/: what the SDK tells about its work, behind one narrow port. `omnimedia/otel`
 * implements it on OpenTelemetry; the core never imports `@opentelemetry/*`. Without the
 * `telemetry` option every call site is one null check: nothing is created, nothing is called.
 * Imports nothing.
 */

/**
 * The span of one SDK call: a submission, an upload, a task query, a wait, a download, one
 * callback delivery. Ended once; later calls of `end` do nothing.
 *
 * @example
 * ```ts
 * span.saw(task);            // a wait's query answered; the task a callback carried
 * span.end(undefined, task); // or span.end(error)
 * ```
 */
export interface TelemetrySpan {
  /**
   * A task the call saw: in a wait, the answer of one of its own queries (a poll); in a
   * callback delivery, the task it carried, as verified. A wait that ends with a task it did
   * not see this way was ended by news: a callback, or another wait's query.
   */
  saw(task: { task_id: string; status: string }): void;
  /**
   * End the span: with the error the call threw, else with what it returned (a task, a
   * submission, an upload record, a callback handler's answer), from which the task's id and
   * status are read. An upload that sent no request of its own (the upload cache gave it a
   * record, or another caller's upload of the same bytes) ends with `{ reused: true }`.
   */
  end(error?: unknown, result?: unknown): void;
  /**
   * Run the call's `work` with this span as the active one (work started inside it, other
   * instrumentation's too, is its child), and end the span when it settles, with its result
   * or its error.
   */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * What an SDK call asks for, as its span starts: read from the caller's params before anything
 * is sent.
 *
 * @example
 * ```ts
 * telemetry.call('images.generate', undefined, { model: 'omni-image' });
 * ```
 */
export interface TelemetryCallRequest {
  /** The model the request names (for a video generation without one, the model the SDK picks). */
  model?: string;
}

/**
 * The span of one HTTP request attempt: it sends the request, and learns the response's status.
 *
 * @example
 * ```ts
 * const response = await attempt.send(fetch, url, { method: 'GET', headers: {} });
 * attempt.end();
 * ```
 */
export interface TelemetryRequest {
  /** `fetch(url, init)` inside the attempt's span (a `traceparent` added when the telemetry propagates). */
  send(fetch: (url: string, init: RequestInit) => Promise<Response>, url: string, init: RequestInit): Promise<Response>;
  /** The attempt is over: with the error it failed with, if any. Later calls do nothing. */
  end(error?: unknown): void;
}

/**
 * Where the SDK reports its work: `openTelemetry()` from `omnimedia/otel`, given to
 * `new OmniMedia({ telemetry })`. Implement it yourself to send the same to another system.
 *
 * @example
 * ```ts
 * import { openTelemetry } from 'omnimedia/otel';
 *
 * const client = new OmniMedia({ telemetry: openTelemetry() });
 * ```
 */
export interface Telemetry {
  /**
   * Start the span of an SDK call, named as the SDK names it (`images.generate`,
   * `uploads.image`, `tasks.retrieve`, `tasks.wait`, `tasks.watch`, `files.download`,
   * `callbacks.handle`): a child of `parent`, else of the caller's active span. `request`: what
   * the call asks for, known before anything is sent (a submission's `model`), so that a call
   * the service refuses is still found by it.
   */
  call(name: string, parent?: TelemetrySpan, request?: TelemetryCallRequest): TelemetrySpan;
  /**
   * Start the span of one request attempt (`attempt` 1 for the first) of the call `parent`:
   * `path` is the API path below the base URL (`v1/tasks/task_123`), `undefined` for a URL
   * outside the API (a result file).
   */
  request(parent: TelemetrySpan | undefined, method: string, url: string, path: string | undefined, attempt: number): TelemetryRequest;
}
