/**
 * callbacks/: completion callbacks in: parsing an untrusted body, the URL token, dedupe of
 * redeliveries, and the delivery every handler runs. Imports waiting/, transport/, schemas/,
 * validation/, coordination/ (ports), options, errors.ts and internal/.
 */
import { MemoryDedupeStore } from '../coordination/memory.ts';
import type { CallbackDedupeStore, DedupeClaim, JournalEntry, SubmissionJournal, TaskEventBus } from '../coordination/ports.ts';
import { CallbackError, NotFoundError, type CallbackErrorReason } from '../errors.ts';
import type { LevelledLogger } from '../internal/logger.ts';
import { guardOf, PortGuard, PORT_TIMEOUT_MS } from '../internal/port-call.ts';
import { raceTimer } from '../internal/race-timer.ts';
import type { HandlerSettings } from '../option-checks.ts';
import type { TaskResult } from '../schemas/task.ts';
import { answerNotes } from '../schemas/tolerant.ts';
import type { Telemetry, TelemetrySpan } from '../telemetry/ports.ts';
import { isTerminalStatus } from '../waiting/status.ts';
import { deliveryKey } from './dedupe.ts';
import { parseCallback, type CallbackBody } from './parse-callback.ts';
import type { CallbackTokens, TokenCheck } from './token.ts';
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
  /**
   * The dedupe store of a handler whose `dedupe` is `true`: a fleet's (its coordination's), or
   * when undefined a new one in memory for each handler.
   */
  sharedDedupe?: CallbackDedupeStore | undefined;
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

/** What the journal says of a posted task: its entry, not one of ours, or cannot tell (no `find`, or no answer now). */
type Whose = JournalEntry | 'not_ours' | 'unchecked';

/**
 * The one rule for what a callback may deliver to `onTask`: a task this client (or its fleet)
 * submitted, as its journal knows it (or, when the journal does not know it, one whose URL
 * carries a token of the client's `callbackSecret`: another process of the app, or this one
 * before a restart), confirmed by the service unless `verify: false`. Under `verify: false` a
 * body is trusted as posted only when its token is the one its own submission was given (or,
 * with no secret at all, when the journal knows the task): any other is read from the service,
 * so one leaked URL can forge nothing but its own task. A journal that cannot tell (one without
 * `find`, or that does not answer now: an outage) degrades as an outage does: the delivery is
 * read from the service, whatever `verify` says. Returns whether the posted body may be trusted
 * as it is, or the refusal.
 */
function mayDeliver(token: TokenCheck | undefined, whose: Whose, verify: boolean): { asPosted: boolean } | Answer {
  if (whose === 'not_ours' && !token) return refusal(403, 'foreign_task');
  const entry = typeof whose === 'object' ? whose : undefined;
  const bound = token ? entry?.callback_nonce !== undefined && token.nonce === entry.callback_nonce : entry !== undefined;
  return { asPosted: !verify && bound };
}

function refusal(status: number, reason: string, close?: true): Answer {
  return { status, body: { ok: false, reason }, ...(close ? { close } : {}) };
}

function isEntry(entry: unknown): boolean {
  return entry === undefined || (typeof entry === 'object' && entry !== null && typeof (entry as JournalEntry).task_id === 'string');
}

function isClaim(claim: unknown): boolean {
  return claim === true || claim === false || claim === 'in_progress';
}

/**
 * What every handler does with a delivery: check the token, read and parse the body (within
 * the read timeout), check that the task is one of ours and verify it with the service (the
 * rule above), dedupe, publish it to pending waits, call `onTask`, and then clear it from the
 * journal; the answer says how it went. Every store on the way is called through its port's
 * guard: one that fails or hangs is a warning, with a local fallback (dedupe in this process),
 * and the writes that must reach it (a claim's release or "done", the journal's clear) are sent
 * again when it answers. `onTask` is not a port: it is the app's own work, and the delivery is
 * acknowledged only once it returned, however long that takes.
 */
export function createDelivery(ports: DeliveryPorts, onTask: CallbackTaskHandler, settings: HandlerSettings): Delivery {
  const { tokens, logger, journal } = ports;
  const { verify, readTimeout } = settings;
  if (!verify && !tokens) {
    logger.warn('callback handler with verify: false and no callbackSecret: anyone who finds the URL can post a fake result for a task this client submitted');
  }
  const store = settings.dedupe === false ? undefined : settings.dedupe === true ? (ports.sharedDedupe ?? new MemoryDedupeStore()) : settings.dedupe;
  const storePort = store && guardOf(store, 'the callback dedupe store', logger);
  /** The claims taken while the store could not be reached: per process, as on a fleet whose Redis is down. */
  const local = new MemoryDedupeStore();
  const journalPort = journal && guardOf(journal, 'the journal of submissions', logger);
  const eventsPort = guardOf(ports.events, 'the task events', logger);
  const parseOptions = { maxBytes: settings.maxBytes };

  const whose = async (taskId: string): Promise<Whose> => {
    if (!journal || !journalPort) return 'unchecked';
    if (typeof journal.find !== 'function') {
      logger.warnOnce('journal-find', 'callback handler: the journal has no find(), so it cannot tell this client’s tasks from others: every delivery is read from the service');
      return 'unchecked';
    }
    const entry = await journalPort.call(() => journal.find?.(taskId), { timeoutMs: PORT_TIMEOUT_MS, accept: isEntry, fallback: () => 'unchecked' as const });
    return entry ?? 'not_ours';
  };

  const deliver = async (method: string | undefined, url: string | undefined, body: () => CallbackBody | Promise<CallbackBody>, span?: TelemetrySpan): Promise<Answer> => {
    if (method?.toUpperCase() !== 'POST') return refusal(405, 'method_not_allowed', true);
    const token = tokens && (await tokens.check(url));
    if (tokens && !token) {
      logger.warn('callback rejected: missing or wrong token');
      return refusal(401, 'unauthorized', true);
    }
    let task: TaskResult;
    let asPosted: boolean;
    try {
      // The read goes on until the connection closes; its outcome no longer matters then.
      const posted = await raceTimer((async () => parseCallback(await body(), parseOptions))(), readTimeout, (): typeof READ_TIMED_OUT => READ_TIMED_OUT);
      if (posted === READ_TIMED_OUT) {
        logger.info(`callback rejected: the body did not arrive within ${readTimeout} ms`);
        return refusal(408, 'read_timeout', true);
      }
      task = posted;
      for (const { key, text } of answerNotes(posted)) logger.warnOnce(key, `callback for task ${posted.task_id}: ${text} (rawAnswer() keeps it as sent; said once)`);
      const decision = mayDeliver(token, await whose(posted.task_id), verify);
      if ('status' in decision) {
        logger.warn(`callback rejected (${decision.body.reason}): task ${posted.task_id} was not submitted by this client or its fleet`);
        return decision;
      }
      asPosted = decision.asPosted;
      if (!asPosted) {
        task = await confirmTask(ports, posted, undefined, span);
        if (task.status !== posted.status) {
          logger.warn(`callback for task ${posted.task_id} says "${posted.status}", the service says "${task.status}"`);
          return refusal(409, 'unconfirmed');
        }
      }
    } catch (error) {
      if (error instanceof CallbackError) {
        // A stranger's junk is not worth a warning per request; an unknown task id may be a forgery.
        const level = error.reason === 'unknown_task' ? 'warn' : 'info';
        logger[level](`callback rejected (${error.reason}): ${error.message}`);
        return refusal(STATUS_OF[error.reason], error.reason, error.reason === 'too_large' ? true : undefined);
      }
      logger.error(`callback could not be verified: ${errorText(error)}`);
      return refusal(500, 'verify_failed');
    }

    // A delivery is acknowledged only once handled: a repeat of one done is a duplicate; one
    // that comes while another delivery runs onTask is told to come again (that onTask may throw).
    span?.saw(task);
    const key = deliveryKey(task);
    const claimed = await claim(store, storePort, local, key);
    if (claimed.claim === false) return { status: 200, body: { ok: true, duplicate: true } };
    if (claimed.claim === 'in_progress') return { ...refusal(503, 'in_progress'), retryAfter: IN_PROGRESS_RETRY_AFTER_S };
    const { holder } = claimed;
    // Only news we can trust reaches pending waits and clears the journal: the service's
    // version, or a body its own submission's token vouches for (not a body trusted only
    // because verify is off and there is no secret).
    const { task_id } = task;
    const trusted = !asPosted || token !== undefined;
    if (trusted) eventsPort.fire(() => ports.events.publish(task));
    try {
      await onTask(task);
    } catch (error) {
      logger.error(`callback onTask threw for task ${task_id}: ${errorText(error)}`);
      // Freed before the answer: the redelivery it asks for must find the claim free.
      await holder.release();
      return refusal(500, 'handler_failed');
    }
    // The result was handled: only now is it off the journal (tasks.pending() lists it till then).
    if (trusted && isTerminalStatus(task.status)) void journalPort?.keep(`journal:${task_id}`, () => journal?.clear(task_id));
    holder.complete();
    return { status: 200, body: { ok: true } };
  };
  return (method, url, body) => {
    const span = ports.telemetry?.call('callbacks.handle');
    return span ? span.run(() => deliver(method, url, body, span)) : deliver(method, url, body);
  };
}

/** Who holds a claim: the handler's store (its writes kept until they arrive), this process's fallback, or nobody (no dedupe). */
interface Holder {
  /** `onTask` threw: free the claim; resolves once sent (or kept for later), never rejects. */
  release(): Promise<void>;
  /** `onTask` returned: the claim is done (nobody waits for it). */
  complete(): void;
}

/**
 * Claim `key`: in the store, through its guard; a store that fails or does not answer within
 * 2 s is an outage, and the claim is taken in this process instead (a warning, once).
 */
async function claim(store: CallbackDedupeStore | undefined, port: PortGuard | undefined, local: MemoryDedupeStore, key: string): Promise<{ claim: DedupeClaim; holder: Holder }> {
  const inProcess: Holder = { release: async () => local.release(key), complete: () => local.complete(key) };
  if (!store || !port) return { claim: true, holder: { release: async () => {}, complete: () => {} } };
  // A claim taken here during an outage stays here until handled.
  const here = local.claim(key);
  if (here !== true) return { claim: here, holder: inProcess };
  local.release(key);
  const FAILED = 'failed' as const;
  const answer = await port.call(() => store.claim(key), { timeoutMs: PORT_TIMEOUT_MS, accept: isClaim, fallback: () => FAILED });
  if (answer === FAILED) return { claim: local.claim(key), holder: inProcess };
  const kept = `claim:${key}`;
  return {
    claim: answer,
    holder: {
      release: () => port.keep(kept, () => store.release(key)),
      complete: () => void (store.complete && port.keep(kept, () => store.complete?.(key))),
    },
  };
}

const READ_TIMED_OUT: unique symbol = Symbol('read timed out');
/** Seconds a delivery that came while another runs onTask is told to wait before coming again. */
const IN_PROGRESS_RETRY_AFTER_S = 5;
