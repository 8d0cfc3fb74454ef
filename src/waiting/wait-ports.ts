import { MemoryDurationsStore, MemoryPollBudget, MemoryTaskEvents } from '../coordination/memory.ts';
import type { Coordination, SubmissionJournal } from '../coordination/ports.ts';
import type { LevelledLogger } from '../internal/logger.ts';
import type { Telemetry } from '../telemetry/ports.ts';
import type { HttpClient } from '../transport/http-client.ts';
import { TaskDurations } from './durations.ts';
import type { WaitPorts } from './poller.ts';
import { retrieveTask } from './retrieve-task.ts';
import { PollScheduler } from './scheduler.ts';

/**
 * The ports of one process's waits, in memory: the task query on `http` (one request per
 * query: the poller retries), one scheduler under a budget of `maxPollsPerSecond`, task events,
 * learned durations. `client.tasks` and `TasksClient` wait through the same.
 */
export function memoryWaitPorts(
  http: HttpClient,
  maxPollsPerSecond: number,
  logger: LevelledLogger,
  journal?: SubmissionJournal,
  telemetry?: Telemetry,
): WaitPorts & { scheduler: PollScheduler; events: MemoryTaskEvents; durations: TaskDurations } {
  return {
    retrieve: (taskId, signal, span) => retrieveTask(http, taskId, { signal, maxRetries: 0 }, span),
    scheduler: new PollScheduler(new MemoryPollBudget(maxPollsPerSecond)),
    events: new MemoryTaskEvents(),
    durations: new TaskDurations(new MemoryDurationsStore()),
    journal,
    logger,
    telemetry,
  };
}

/** The ports of a fleet's waits: the coordination's events, budget, learning, journal, leases. */
export function fleetWaitPorts(
  http: HttpClient,
  maxPollsPerSecond: number,
  logger: LevelledLogger,
  coordination: Coordination,
  telemetry?: Telemetry,
): WaitPorts & { scheduler: PollScheduler } {
  return {
    retrieve: (taskId, signal, span) => retrieveTask(http, taskId, { signal, maxRetries: 0 }, span),
    scheduler: new PollScheduler(coordination.budget(maxPollsPerSecond)),
    events: coordination.events,
    durations: new TaskDurations(coordination.durations),
    journal: coordination.journal,
    leases: coordination.leases,
    logger,
    telemetry,
  };
}
