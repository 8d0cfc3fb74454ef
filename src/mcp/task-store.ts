import { randomUUID } from 'node:crypto';
import { isTerminal, type CreateTaskOptions, type TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import { requestKey } from './tool-call.ts';

/** How long a task is kept when the client asks for no `ttl`, and at most: 1 hour, 24 hours. */
const DEFAULT_TTL_MS = 3_600_000;
const MAX_TTL_MS = 86_400_000;
/** Tasks kept at most; past it the oldest ended ones go first. */
const MAX_TASKS = 10_000;
/** The `pollInterval` a task suggests to the client: its `tasks/get` are answered from memory. */
export const TASK_POLL_INTERVAL_MS = 2_000;

interface Entry {
  task: Task;
  result?: Result;
  sessionId: string | undefined;
  key: string;
  expiry: ReturnType<typeof setTimeout> | undefined;
  /** The tool call feeding it: cancelled with it. */
  owner?: TaskOwner;
}

/**
 * What feeds an MCP task: `cancel` when the client cancels the task, and `settled` once what the
 * call did after the cancel is stored (`settleCancelled`): a submission already sent by then
 * still answers, and its task id is the agent's to know.
 */
export interface TaskOwner {
  cancel(reason: string): void;
  settled: Promise<void>;
}

/**
 * The MCP tasks of a server, as the MCP SDK's task handlers (`tasks/get`, `tasks/result`,
 * `tasks/list`, `tasks/cancel`) read them: in memory, per session, fed by the SDK's own waits.
 *
 * - A task-augmented request delivered again (same session and request id) gets the task made
 *   for it the first time: MCP forbids reusing an id, so it is the same request.
 * - Only task-augmented calls make tasks: a plain call is answered without one (tool-routes.ts).
 * - Bounded: an ended task is kept for its `ttl` (default 1 h, at most 24 h) from its end (a
 *   running one is never dropped for its ttl: a video may outlast it), 24 h at most from its
 *   creation, and 10,000 tasks at most.
 */
export class ServiceTaskStore implements TaskStore {
  readonly #entries = new Map<string, Entry>();
  readonly #byRequest = new Map<string, string>();

  async createTask(params: CreateTaskOptions, requestId: RequestId, _request: Request, sessionId?: string): Promise<Task> {
    const key = requestKey(sessionId, requestId);
    const known = this.#byRequest.get(key);
    const existing = known === undefined ? undefined : this.#entries.get(known);
    if (existing) return { ...existing.task };
    this.#evict();
    const now = new Date().toISOString();
    const ttl = Math.min(params.ttl ?? DEFAULT_TTL_MS, MAX_TTL_MS);
    const task: Task = { taskId: randomUUID(), status: 'working', ttl, createdAt: now, lastUpdatedAt: now, pollInterval: TASK_POLL_INTERVAL_MS };
    const entry: Entry = { task, sessionId, key, expiry: undefined };
    this.#entries.set(task.taskId, entry);
    this.#byRequest.set(key, task.taskId);
    this.#expireIn(entry, MAX_TTL_MS);
    return { ...task };
  }

  /** The call that feeds the task (see {@link TaskOwner}). */
  own(taskId: string, owner: TaskOwner): void {
    const entry = this.#entries.get(taskId);
    if (entry) entry.owner = owner;
  }

  /**
   * The last word on a task the client cancelled: what its call did after the cancel (nothing
   * submitted, or the task id of a submission already sent), as status message and result.
   */
  settleCancelled(taskId: string, statusMessage: string, result: Result): void {
    const entry = this.#entries.get(taskId);
    if (entry?.task.status !== 'cancelled') return;
    entry.result = result;
    entry.task = { ...entry.task, statusMessage, lastUpdatedAt: new Date().toISOString() };
  }

  async getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    const entry = this.#lookup(taskId, sessionId);
    return entry ? { ...entry.task } : null;
  }

  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result, sessionId?: string): Promise<void> {
    const entry = this.#lookup(taskId, sessionId);
    if (!entry) throw new Error(`Task ${taskId} not found`);
    if (isTerminal(entry.task.status)) throw new Error(`Task ${taskId} has ended (${entry.task.status}): its result is kept as it was`);
    entry.result = result;
    this.#update(entry, status);
  }

  async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const entry = this.#lookup(taskId, sessionId);
    // A cancelled task's result is what its call did after the cancel: known once it settled.
    if (entry && !entry.result && entry.task.status === 'cancelled') await entry.owner?.settled;
    if (!entry?.result) throw new Error(`Task ${taskId} has no result`);
    return entry.result;
  }

  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string, sessionId?: string): Promise<void> {
    const entry = this.#lookup(taskId, sessionId);
    if (!entry) throw new Error(`Task ${taskId} not found`);
    if (isTerminal(entry.task.status)) throw new Error(`Task ${taskId} has ended (${entry.task.status})`);
    this.#update(entry, status, statusMessage);
    if (status === 'cancelled') entry.owner?.cancel('the MCP task was cancelled');
  }

  async listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const PAGE = 50;
    const ids = [...this.#entries.keys()].filter((id) => this.#lookup(id, sessionId));
    const start = cursor === undefined ? 0 : ids.indexOf(cursor) + 1;
    if (cursor !== undefined && start === 0) throw new Error(`Invalid cursor: ${cursor}`);
    const page = ids.slice(start, start + PAGE);
    const tasks = page.map((id) => ({ ...this.#entries.get(id)!.task }));
    return start + PAGE < ids.length ? { tasks, nextCursor: page.at(-1)! } : { tasks };
  }

  /** Forget every task (the server closed). */
  clear(): void {
    for (const entry of [...this.#entries.values()]) this.#delete(entry);
  }

  /** A task of the caller's session (or of none, with stdio). */
  #lookup(taskId: string, sessionId: string | undefined): Entry | undefined {
    const entry = this.#entries.get(taskId);
    return entry && (sessionId === undefined || entry.sessionId === undefined || entry.sessionId === sessionId) ? entry : undefined;
  }

  #update(entry: Entry, status: Task['status'], statusMessage?: string): void {
    entry.task = { ...entry.task, status, ...(statusMessage !== undefined ? { statusMessage } : {}), lastUpdatedAt: new Date().toISOString() };
    // An ended task is kept for its ttl from now.
    if (isTerminal(status) && entry.task.ttl) this.#expireIn(entry, entry.task.ttl);
  }

  #expireIn(entry: Entry, ms: number): void {
    if (entry.expiry) clearTimeout(entry.expiry);
    entry.expiry = setTimeout(() => this.#delete(entry), ms);
    // A kept task must not hold a finished process open.
    (entry.expiry as { unref?: () => void }).unref?.();
  }

  #delete(entry: Entry): void {
    if (entry.expiry) clearTimeout(entry.expiry);
    if (this.#entries.get(entry.task.taskId) === entry) this.#entries.delete(entry.task.taskId);
    if (this.#byRequest.get(entry.key) === entry.task.taskId) this.#byRequest.delete(entry.key);
  }

  #evict(): void {
    if (this.#entries.size < MAX_TASKS) return;
    const oldest = [...this.#entries.values()].find((entry) => isTerminal(entry.task.status)) ?? this.#entries.values().next().value;
    if (oldest) this.#delete(oldest);
  }
}
