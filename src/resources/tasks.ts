import type { JournalEntry } from '../coordination/ports.ts';
import { OmniMediaError, ValidationError } from '../errors.ts';
import { errorText } from '../internal/error-text.ts';
import { guardOf } from '../internal/port-call.ts';
import { checkRequestOptions } from '../option-checks.ts';
import { DEFAULT_VIDEO_TIMEOUT_MS, type RetrieveOptions, type WaitOptions } from '../options.ts';
import type { TaskResult } from '../schemas/task.ts';
import { taskIdProblem } from '../schemas/task-id.ts';
import type { HttpClient } from '../transport/http-client.ts';
import { pollTarget, waitForTask, watchTask, type WaitPorts } from '../waiting/poller.ts';
import { retrieveTask } from '../waiting/retrieve-task.ts';

/** How long `pending()` waits for the journal, in ms: a journal on Redis reads a page at a time. */
const PENDING_TIMEOUT_MS = 30_000;

function isEntry(entry: unknown): entry is JournalEntry {
  const { task_id, kind, submitted_at } = (entry ?? {}) as Partial<JournalEntry>;
  return typeof task_id === 'string' && typeof kind === 'string' && typeof submitted_at === 'number';
}

/** The task id rule (`taskIdProblem`), before any request: a `ValidationError` naming it. */
function checkTaskId(taskId: unknown, context: string): void {
  const message = taskIdProblem(taskId);
  if (message) throw new ValidationError([{ path: '', message }], context);
}

/**
 * `GET /v1/tasks/{id}`, and waiting on it. Needs no API key.
 *
 * @example
 * ```ts
 * const keyless = new OmniMedia({ baseURL: 'https://media.example.com' });
 * const task = await keyless.tasks.wait('task_123');
 * ```
 */
export class Tasks {
  readonly #http: HttpClient;
  readonly #waiting: WaitPorts;

  /** @internal */
  constructor(context: { http: HttpClient; waiting: WaitPorts }) {
    this.#http = context.http;
    this.#waiting = context.waiting;
  }

  /**
   * Tasks submitted (here or by another instance of the fleet) whose result nobody has seen
   * and that nobody waits on any more: their instance died, or its last wait on them stopped
   * without the result (a time-out, an abort). Resume each with `tasks.wait`. With a
   * `coordination` (omnimedia/redis) this is how a restart loses no task; in one process, it
   * lists the submissions whose waits gave up.
   *
   * @example
   * ```ts
   * for (const { task_id } of await client.tasks.pending()) client.tasks.wait(task_id).then(save);
   * ```
   */
  async pending(): Promise<JournalEntry[]> {
    const { journal, logger } = this.#waiting;
    if (!journal) return [];
    const entries = await guardOf(journal, 'the journal of submissions', logger).call(() => journal.pending(), {
      timeoutMs: PENDING_TIMEOUT_MS,
      accept: Array.isArray,
      fallback: (why): never => {
        if (why instanceof OmniMediaError) throw why;
        throw new OmniMediaError(`tasks.pending: the journal could not answer (${errorText(why)}): try again`, { cause: why });
      },
    });
    // What a journal keeps beside an entry (its callback token's nonce) is not the caller's.
    return entries.flatMap((entry) => (isEntry(entry) ? [{ task_id: entry.task_id, kind: entry.kind, submitted_at: entry.submitted_at }] : []));
  }

  /**
   * Read a task. Needs no API key (the endpoint is public), so a keyless client can poll.
   *
   * @example
   * ```ts
   * const task = await client.tasks.retrieve('task_123');
   * if (task.status === 'completed') console.log(task.data?.[0]?.url);
   * ```
   */
  async retrieve(taskId: string, options?: RetrieveOptions): Promise<TaskResult> {
    checkTaskId(taskId, 'tasks.retrieve task id');
    const read = checkRequestOptions(options, 'tasks.retrieve', taskId);
    const span = this.#waiting.telemetry?.call('tasks.retrieve');
    return span ? span.run(() => retrieveTask(this.#http, taskId, read, span)) : retrieveTask(this.#http, taskId, read);
  }

  /**
   * Wait for a task until it completes: resume a wait by id (after a restart, in another
   * process). The first query is sent at once; the cadence, options and outcomes are those of
   * `.wait()` ([Waiting and progress](https://github.com/omnimedia/omnimedia/blob/main/docs/waiting.md)). The default deadline is 30 minutes.
   *
   * @example
   * ```ts
   * const task = await client.tasks.wait('task_123', { timeout: 120_000 });
   * console.log(task.data?.[0]?.url);
   * ```
   */
  async wait(taskId: string, options?: WaitOptions): Promise<TaskResult> {
    checkTaskId(taskId, 'tasks.wait task id');
    return waitForTask(pollTarget(this.#waiting, taskId, { defaultTimeout: DEFAULT_VIDEO_TIMEOUT_MS, what: 'tasks.wait' }), options);
  }

  /**
   * Follow a task: yields the task at the first query and again each time its status or
   * attempts change, and ends when it completes (after yielding it). A failed task is yielded,
   * then `TaskFailedError` is thrown; deadline and abort end it as they end `wait`. `break`
   * stops polling at once.
   *
   * @example
   * ```ts
   * for await (const task of client.tasks.watch('task_123')) {
   *   console.log(task.status, task.attempt_count);
   * }
   * ```
   */
  async *watch(taskId: string, options?: WaitOptions): AsyncGenerator<TaskResult, void, undefined> {
    checkTaskId(taskId, 'tasks.watch task id');
    yield* watchTask(pollTarget(this.#waiting, taskId, { defaultTimeout: DEFAULT_VIDEO_TIMEOUT_MS, what: 'tasks.watch' }), options);
  }
}
