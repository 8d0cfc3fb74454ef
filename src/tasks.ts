/**
 * `omnimedia/tasks`: a keyless, browser-sized client that follows tasks (`retrieve`, `wait`,
 * `watch`), for pages that follow a task their server submitted. It is `client.tasks` (the same
 * class: same options, errors, cadence and learning) without the rest of the client, so a
 * bundler leaves uploads, callbacks, downloads and the request schemas out.
 *
 * @module omnimedia/tasks
 */
import { createLogger } from './internal/logger.ts';
import { createKeylessRedactor } from './internal/redact.ts';
import { readEnv } from './internal/runtime.ts';
import { resolveTasksClientOptions } from './option-checks.ts';
import type { ClientOptions } from './options.ts';
import { Tasks } from './resources/tasks.ts';
import { HttpClient } from './transport/http-client.ts';
import { waitPorts } from './waiting/wait-ports.ts';

/**
 * Options of `new TasksClient({...})`: those of `new OmniMedia` that a keyless task client
 * uses. `baseURL` defaults to `OMNIMEDIA_BASE_URL` where `process.env` exists; in a page behind
 * `omnimedia/proxy`, `proxyURL` instead (relative to the page, with its cookies).
 *
 * @example
 * ```ts
 * const tasks = new TasksClient({ baseURL: 'https://media.example.com', timeout: 10_000, maxPollsPerSecond: 5 });
 * const behindProxy = new TasksClient({ proxyURL: '/api/omnimedia' });
 * ```
 */
export type TasksClientOptions = Pick<
  ClientOptions,
  'baseURL' | 'proxyURL' | 'fetch' | 'timeout' | 'maxRetries' | 'maxPollsPerSecond' | 'defaultHeaders' | 'logger' | 'logLevel' | 'telemetry'
>;

/**
 * Follows tasks without an API key (the task query endpoint is public): `retrieve`, `wait`
 * and `watch`, exactly as `client.tasks`.
 *
 * @example
 * ```ts
 * import { TasksClient } from 'omnimedia/tasks';
 *
 * const tasks = new TasksClient({ baseURL: 'https://media.example.com' });
 * const task = await tasks.wait(taskId, { onProgress: (t) => render(t.status) });
 * show(task.data?.[0]?.url);
 * ```
 */
export class TasksClient extends Tasks {
  constructor(options: TasksClientOptions = {}) {
    // No key, ever: OMNIMEDIA_API_KEY is not read.
    const settings = resolveTasksClientOptions(options, readEnv);
    const redactor = createKeylessRedactor();
    const logger = createLogger(settings.logger, settings.logLevel, redactor);
    const http = new HttpClient({ ...settings, apiKey: undefined, logger, redactor });
    super({ http, waiting: waitPorts(http, settings.maxPollsPerSecond, logger, {}, settings.telemetry) });
  }
}

export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  InternalServerError,
  NotFoundError,
  OmniMediaError,
  RateLimitError,
  ServiceUnavailableError,
  TaskFailedError,
  ValidationError,
  WaitTimeoutError,
  type ValidationIssue,
} from './errors.ts';
export type { Fetch } from './transport/http-client.ts';
export type { LogLevel, Logger } from './internal/logger.ts';
export type { RetrieveOptions, WaitOptions } from './options.ts';
export type { TaskAttempt, TaskOutput, TaskResult, TaskStatus } from './schemas/task.ts';
export { rawAnswer } from './schemas/tolerant.ts';
export { isFailureStatus, isSuccessStatus, isTerminalStatus } from './waiting/status.ts';
