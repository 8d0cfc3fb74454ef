import { MemoryTaskEvents } from '../coordination/memory.ts';
import type { Coordination, PollBudget } from '../coordination/ports.ts';
import { callPort, PORT_TIMEOUT_MS } from '../internal/port-call.ts';
import { isThenable } from '../internal/thenable.ts';
import type { LevelledLogger } from '../internal/logger.ts';
import type { Telemetry } from '../telemetry/ports.ts';
import type { HttpClient } from '../transport/http-client.ts';
import { TaskDurations } from './durations.ts';
import type { WaitPorts } from './poller.ts';
import { retrieveTask } from './retrieve-task.ts';
import { PollScheduler } from './scheduler.ts';
import { proxyStreams } from './task-stream.ts';

/**
 * The ports of a client's waits: the task query on `http` (one request per query: the poller
 * retries), one scheduler under a budget of `maxPollsPerSecond`, and the state they share,
 * `shared`: a fleet's (a `Coordination`: its events, budget, learning, journal and leases), or
 * this process's in memory (only a journal given). `client.tasks` and `TasksClient` wait
 * through the same.
 */
export function waitPorts(
  http: HttpClient,
  maxPollsPerSecond: number,
  logger: LevelledLogger,
  shared: Partial<Coordination>,
  telemetry: Telemetry | undefined,
): WaitPorts & { scheduler: PollScheduler } {
  return {
    retrieve: (taskId, signal, span, what) => retrieveTask(http, taskId, { signal, maxRetries: 0 }, span, what),
    scheduler: sharedScheduler(shared, maxPollsPerSecond, logger),
    events: shared.events ?? new MemoryTaskEvents(),
    durations: new TaskDurations(shared.durations, logger),
    journal: shared.journal,
    leases: shared.leases,
    logger,
    telemetry,
    // Behind the app's proxy, waits read the task's event stream (the service itself has none).
    streams: http.proxied ? proxyStreams(http) : undefined,
  };
}

/**
 * The scheduler of waits under the fleet's budget (`shared.budget`) of `maxPollsPerSecond`, or a
 * budget of its own when there is no fleet, or its budget() fails or is not one.
 */
export function sharedScheduler(shared: Partial<Coordination>, maxPollsPerSecond: number, logger: LevelledLogger): PollScheduler {
  const budget = callPort(() => shared.budget?.(maxPollsPerSecond), { timeoutMs: PORT_TIMEOUT_MS, accept: isBudget, fallback: () => undefined });
  return new PollScheduler(budget && !isThenable(budget) ? budget : maxPollsPerSecond, logger);
}

function isBudget(budget: unknown): boolean {
  return budget === undefined || (typeof (budget as Partial<PollBudget> | null)?.take === 'function' && Number.isFinite((budget as PollBudget).maxPerSecond));
}
