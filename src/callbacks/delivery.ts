/**
 * callbacks/: completion callbacks in: parsing an untrusted body, the URL token, dedupe of
 * redeliveries, and the delivery every handler runs. Imports waiting/, transport/, schemas/,
 * validation/, coordination/ (ports), options, errors.ts and internal/.
 */
import type { CallbackDedupeStore, SubmissionJournal, TaskEventBus } from '../coordination/ports.ts';
import { CallbackError, NotFoundError, type CallbackErrorReason } from '../errors.ts';
import type { LevelledLogger } from '../internal/logger.ts';
import { raceTimer } from '../internal/race-timer.ts';
import { settle } from '../internal/settle.ts';
import type { HandlerSettings } from '../option-checks.ts';
import type { TaskResult } from '../schemas/task.ts';
import { answerNotes } from '../schemas/tolerant.ts';
import type { Telemetry, TelemetrySpan } from '../telemetry/ports.ts';
import { isTerminalStatus } from '../waiting/status.ts';
import { deliveryKey } from './dedupe.ts';
import { parseCallback, type CallbackBody } from './parse-callback.ts';
import type { CallbackTokens } from './token.ts';
import { errorText } from '../internal/error-text.ts';

/**
 * Called once per accepted delivery, with the service's own version of the task when verified.
 *
 * @example
 * ```ts
 * const onTask: CallbackTaskHandler = async (task) => {
 *   await db.tasks.update(task.task_id, { status: task.status, url: task.data?.[0]?.url });
 * };
 * ```
 */
export type CallbackTaskHandler = (task: TaskResult) => unknown;

/** What a delivery gets back: the status and a small JSON acknowledgement. */
export interface Answer {
  status: number;
  body: { ok: boolean; duplicate?: true; reason?: string };
  /** The request body may be left unread: close the connection rather than drain it. */
  close?: true;
  /** Seconds before the delivery should come again (`Retry-After`). */
  retryAfter?: number;
}

const STATUS_OF: Record<CallbackErrorReason, number> = {
  too_large: 413,
  unauthorized: 401,
  invalid_body: 400,
  invalid_json: 400,
  invalid_shape: 400,
  unknown_task: 400,
};

/** What the delivery of callbacks runs through: the task query, the token, the task events... */
export interface DeliveryPorts {
  /** The service's own version of a task (the task query), for the call `span` when telemetry is on. */
  retrieve(taskId: string, signal?: AbortSignal, span?: TelemetrySpan): Promise<TaskResult>;
  tokens: CallbackTokens | undefined;
  events: TaskEventBus;
  journal?: SubmissionJournal | undefined;
  logger: LevelledLogger;
  /** The dedupe store of a handler whose `dedupe` is `true`. */
  defaultDedupe(): CallbackDedupeStore;
  /** Where each delivery is reported, when the `telemetry` option is set. */
  telemetry?: Telemetry | undefined;
}

/**
 * The service's version of a posted task. The spec signs no callback, so this is what makes
 * one trustworthy; an id the service does not know is `CallbackError` `unknown_task`.
 */
export async function confirmTask(ports: Pick<DeliveryPorts, 'retrieve'>, posted: TaskResult, signal?: AbortSignal, span?: TelemetrySpan): Promise<TaskResult> {
  try {
    return await ports.retrieve(posted.task_id, signal, span);
  } catch (error) {
    if (error instanceof NotFoundError) {
      throw new CallbackError('unknown_task', `Callback names task ${posted.task_id}, which the service does not know`, {
        cause: error,
        taskId: posted.task_id,
      });
    }
    throw error;
  }
}

/** One delivery: its method, its URL (for the token) and a way to read its body. */
export type Delivery = (method: string | undefined, url: string | undefined, body: () => CallbackBody | Promise<CallbackBody>) => Promise<Answer>;

/**
 * What every handler does with a delivery: check the token, read and parse the body (within
 * the read timeout), verify it with the service, dedupe, publish it to pending waits, clear
 * it from the journal, and call `onTask`; the answer says how it went.
 */
export function createDelivery(ports: DeliveryPorts, onTask: CallbackTaskHandler, settings: HandlerSettings): Delivery {
  const { tokens, logger } = ports;
  const { verify, readTimeout } = settings;
  if (!verify && !tokens) {
    logger.warn('callback handler with verify: false and no callbackSecret: anyone who finds the URL can post a fake task to onTask');
  }
  const store = settings.dedupe === false ? undefined : settings.dedupe === true ? ports.defaultDedupe() : settings.dedupe;
  const parseOptions = { maxBytes: settings.maxBytes };
  const sharedStateFailed = (error: unknown) => logger.warn(`callback: shared state could not be updated: ${errorText(error)}`);
  const reject = (status: number, reason: string, close?: true): Answer => ({
    status,
    body: { ok: false, reason },
    ...(close ? { close } : {}),
  });

  const deliver = async (method: string | undefined, url: string | undefined, body: () => CallbackBody | Promise<CallbackBody>, span?: TelemetrySpan): Promise<Answer> => {
    if (method?.toUpperCase() !== 'POST') return reject(405, 'method_not_allowed', true);
    if (tokens && !(await tokens.accepts(url))) {
      logger.warn('callback rejected: missing or wrong token');
      return reject(401, 'unauthorized', true);
    }
    let task: TaskResult;
    try {
      // The read goes on until the connection closes; its outcome no longer matters then.
      const posted = await raceTimer((async () => parseCallback(await body(), parseOptions))(), readTimeout, (): typeof READ_TIMED_OUT => READ_TIMED_OUT);
      if (posted === READ_TIMED_OUT) {
        logger.info(`callback rejected: the body did not arrive within ${readTimeout} ms`);
        return reject(408, 'read_timeout', true);
      }
      task = posted;
      for (const { key, text } of answerNotes(posted)) logger.warnOnce(key, `callback for task ${posted.task_id}: ${text} (rawAnswer() keeps it as sent; said once)`);
      if (verify) {
        task = await confirmTask(ports, posted, undefined, span);
        if (task.status !== posted.status) {
          logger.warn(`callback for task ${posted.task_id} says "${posted.status}", the service says "${task.status}"`);
          return reject(409, 'unconfirmed');
        }
      }
    } catch (error) {
      if (error instanceof CallbackError) {
        // A stranger's junk is not worth a warning per request; an unknown task id may be a forgery.
        const level = error.reason === 'unknown_task' ? 'warn' : 'info';
        logger[level](`callback rejected (${error.reason}): ${error.message}`);
        return reject(STATUS_OF[error.reason], error.reason, error.reason === 'too_large' ? true : undefined);
      }
      logger.error(`callback could not be verified: ${errorText(error)}`);
      return reject(500, 'verify_failed');
    }

    // A delivery is acknowledged only once handled: a repeat of one done is a duplicate; one
    // that comes while another delivery runs onTask is told to come again (that onTask may throw).
    span?.saw(task);
    const key = deliveryKey(task);
    try {
      const claim = store ? await store.claim(key) : true;
      if (claim === false) return { status: 200, body: { ok: true, duplicate: true } };
      if (claim === 'in_progress') return { ...reject(503, 'in_progress'), retryAfter: IN_PROGRESS_RETRY_AFTER_S };
    } catch (error) {
      logger.error(`callback dedupe store failed: ${errorText(error)}`);
      return reject(500, 'dedupe_failed');
    }
    // Only news we can trust reaches pending waits: verified, or carried by a checked token.
    const trusted = verify || tokens;
    if (trusted) settle(() => ports.events.publish(task), sharedStateFailed);
    try {
      await onTask(task);
    } catch (error) {
      logger.error(`callback onTask threw for task ${task.task_id}: ${errorText(error)}`);
      try {
        await store?.release(key);
      } catch {
        // The store is down too; the redelivery may be taken for a repeat. Logged above.
      }
      return reject(500, 'handler_failed');
    }
    // The result was handled: only now is it off the journal (tasks.pending() lists it till then).
    if (trusted && isTerminalStatus(task.status)) settle(() => ports.journal?.clear(task.task_id), sharedStateFailed);
    if (store?.complete) settle(() => store.complete?.(key), sharedStateFailed);
    return { status: 200, body: { ok: true } };
  };
  return (method, url, body) => {
    const span = ports.telemetry?.call('callbacks.handle');
    return span ? span.run(() => deliver(method, url, body, span)) : deliver(method, url, body);
  };
}

const READ_TIMED_OUT: unique symbol = Symbol('read timed out');
/** Seconds a delivery that came while another runs onTask is told to wait before coming again. */
const IN_PROGRESS_RETRY_AFTER_S = 5;
