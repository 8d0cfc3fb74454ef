import { context, isSpanContextValid, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { TelemetryCallRequest, TelemetrySpan } from '../telemetry/ports.ts';
import { OPERATIONS, asTask, callAttributes, errorType, statusOf, taskOfError, type TaskLike } from './attributes.ts';
import type { Instruments } from './metrics.ts';

/** What the spans of one `openTelemetry()` share. */
export interface SpanOwner {
  tracer: Tracer;
  /** The instruments, created at the first use (after the app has registered its meter provider). */
  instruments(): Instruments;
  httpSpans: boolean;
  propagate: boolean;
  /** The tasks callback deliveries carried: a wait that ends with one of them was ended by a callback. */
  calledBack: WeakSet<object>;
}

/**
 * `parent` with `span` in it. A span that records nothing and belongs to no trace (what the API
 * returns with no SDK registered) changes nothing for its children: the parent is kept as it is.
 */
export function withSpan(parent: Context, span: Span): Context {
  return span.isRecording() || isSpanContextValid(span.spanContext()) ? trace.setSpan(parent, span) : parent;
}

/** The span of one SDK call (`omnimedia.<name>`, kind INTERNAL). */
export class CallSpan implements TelemetrySpan {
  readonly span: Span;
  /** The caller's context with this span in it: the parent of everything the call starts. */
  readonly context: Context;
  /** Request attempts started under this call (a wait's: its task queries). */
  attempts = 0;
  readonly #owner: SpanOwner;
  readonly #operation: string | undefined;
  readonly #started = Date.now();
  /** The task of this wait's last own query. */
  #polled: object | undefined;
  #ended = false;

  constructor(owner: SpanOwner, name: string, parent: Context, request?: TelemetryCallRequest) {
    this.#owner = owner;
    this.#operation = OPERATIONS[name];
    this.span = owner.tracer.startSpan(`omnimedia.${name}`, { kind: SpanKind.INTERNAL, attributes: callAttributes(this.#operation, request) }, parent);
    this.context = withSpan(parent, this.span);
  }

  saw(task: { task_id: string; status: string }): void {
    if (this.#operation === 'wait') {
      this.#polled = task;
      this.span.addEvent('omnimedia.poll', { 'omnimedia.task.status': task.status });
      return;
    }
    // A callback delivery: the task it carried, as verified.
    this.#owner.calledBack.add(task);
    this.span.setAttributes({ 'omnimedia.task.id': task.task_id, 'omnimedia.task.status': task.status });
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    return context.with(this.context, work).then(
      (result) => {
        this.end(undefined, result);
        return result;
      },
      (error: unknown) => {
        this.end(error);
        throw error;
      },
    );
  }

  end(error?: unknown, result?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    const failed = error !== undefined;
    const task = failed ? taskOfError(error) : asTask(result);
    const attributes: Attributes = {};
    const taskId = task?.task_id ?? (error as { taskId?: unknown } | null | undefined)?.taskId;
    if (typeof taskId === 'string') attributes['omnimedia.task.id'] = taskId;
    const status = statusOf(task);
    if (status !== undefined) attributes['omnimedia.task.status'] = status;
    const failReason = (error as { failReason?: unknown } | null | undefined)?.failReason;
    if (typeof failReason === 'string') attributes['omnimedia.task.fail_reason'] = failReason;
    if (failed) attributes['error.type'] = errorType(error);
    // The task a wait ended with: the completed one, or the failed one (a timeout has none).
    if (this.#operation === 'wait') this.#endWait(attributes, task, failed ? asTask((error as { task?: unknown }).task) : task);
    if (this.#operation === 'callback') this.#endCallback(attributes, result);
    // An upload that sent no request: the cache's record, or another call's upload of the same bytes.
    if ((result as { reused?: unknown } | undefined)?.reused === true) attributes['omnimedia.upload.reused'] = true;
    if (attributes['error.type'] !== undefined) this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.span.setAttributes(attributes);
    this.span.end();
  }

  #endWait(attributes: Attributes, task: TaskLike | undefined, ending: TaskLike | undefined): void {
    attributes['omnimedia.poll.count'] = this.attempts;
    const operation = typeof task?.operation === 'string' ? task.operation : undefined;
    if (operation !== undefined) attributes['omnimedia.task.operation'] = operation;
    // Seen by its own last query, carried by a callback of this process, or shared by another
    // wait or (on a fleet) another instance.
    if (ending) attributes['omnimedia.wait.ended_by'] = ending === this.#polled ? 'poll' : this.#owner.calledBack.has(ending) ? 'callback' : 'shared';
    const metric: Attributes = { 'omnimedia.operation': 'wait' };
    for (const key of ['omnimedia.task.status', 'omnimedia.task.operation', 'error.type'])
      if (attributes[key] !== undefined) metric[key] = attributes[key];
    const instruments = this.#owner.instruments();
    instruments.waitDuration.record((Date.now() - this.#started) / 1000, metric);
    instruments.waitPolls.record(this.attempts, metric);
  }

  #endCallback(attributes: Attributes, result: unknown): void {
    const answer = result as { status?: number; body?: { duplicate?: boolean; reason?: string } } | undefined;
    const code = answer?.status ?? 500;
    const outcome = code === 200 ? (answer?.body?.duplicate ? 'duplicate' : 'accepted') : 'rejected';
    const metric: Attributes = { 'omnimedia.callback.outcome': outcome };
    const reason = answer?.body?.reason;
    if (outcome === 'rejected' && typeof reason === 'string') metric['omnimedia.callback.reason'] = reason;
    Object.assign(attributes, metric, { 'omnimedia.callback.status_code': code });
    // A rejection is the handler doing its job; an answer of 500 is a failure on our side.
    if (code >= 500) attributes['error.type'] ??= typeof reason === 'string' ? reason : '_OTHER';
    this.#owner.instruments().callbacks.add(1, metric);
  }
}
