import type { CreateTaskRequestHandlerExtra } from '@modelcontextprotocol/sdk/experimental/tasks';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RELATED_TASK_META_KEY, type CallToolResult, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { TaskFailedError, ValidationError, WaitTimeoutError, isSuccessStatus, isTerminalStatus, type TaskResult } from 'omnimedia';
import * as z from 'zod/mini';
import { VERSION } from '../internal/version.ts';
import type { JsonSchema } from '../schemas/rules.ts';
import { LocalFiles } from './local-files.ts';
import { resolveMcpOptions, type McpServerOptions, type McpSettings } from './options.ts';
import { keyScrubber } from './redaction.ts';
import { RenderBudget } from './render-budget.ts';
import { completedResult, errorResult, runningResult, type ResultContext } from './results.ts';
import { prepareSubmission } from './submit.ts';
import { ServiceTaskStore } from './task-store.ts';
import { ToolCalls, requestKey, type Outcome, type ToolCall } from './tool-call.ts';
import { routeToolCalls } from './tool-routes.ts';
import { toolDefinitions, type SubmissionTool } from './tool-schemas.ts';
import { uploadFile } from './upload-file.ts';

const SUBMISSION_TOOLS: readonly SubmissionTool[] = ['generate_image', 'edit_image', 'generate_video', 'edit_video'];

const INSTRUCTIONS =
  'Generates and edits images and videos on the omnimedia service. Each call of generate_image, edit_image, generate_video ' +
  'or edit_video submits one billed task: to follow a task, call get_task with its task_id, never the submission again. ' +
  'References (images, masks, source videos) are upload URLs or ids from upload_file, or local files where the server allows them.';

/**
 * A tool's input schema for the MCP SDK: a zod object that lets every object through (the SDK's
 * own request rules check the input when the tool runs, so that invalid input on a task call is
 * a failed task with nothing sent, and every broken rule is named by its field), listed as the
 * JSON Schema the rules state (zod puts a schema's registered metadata into its JSON Schema).
 */
function inputSchemaOf(json: JsonSchema) {
  const schema = z.looseObject({});
  z.globalRegistry.add(schema, json);
  return schema;
}

/** `task_id X: processing (attempt 2)`: a task's status for the agent. */
const statusLine = (task: TaskResult) =>
  `task_id ${task.task_id}: ${task.status}${task.attempt_count !== undefined && task.attempt_count > 1 ? ` (attempt ${task.attempt_count})` : ''}`;

type Extra = Pick<CreateTaskRequestHandlerExtra, '_meta' | 'sendNotification' | 'signal'>;

/**
 * An MCP server whose tools are the service's tasks: `generate_image`, `edit_image`,
 * `generate_video`, `edit_video` (MCP tasks, `taskSupport: 'optional'`), `upload_file` and
 * `get_task`, on the official `@modelcontextprotocol/sdk` (an optional peer: install it beside
 * omnimedia). Connect it to any transport of that SDK. See docs/agents.md.
 *
 * - A task-augmented call answers a `CreateTaskResult` at once; the MCP task follows the
 *   service task through the client's own wait (its cadence, callbacks and fleet sharing) and
 *   `tasks/get`, `tasks/result`, `tasks/list` answer from it. Its status message names the
 *   service `task_id`; a progress token gets a notification on each status change.
 * - A call without task support waits up to `waitMs` (progress on each change), then returns
 *   the running task with its `task_id` and the advice to call `get_task`.
 * - The same request delivered again (same session and JSON-RPC id) gets the same task: never
 *   a second submission. The key is in no result, status or notification.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * import { OmniMedia } from 'omnimedia';
 * import { createMcpServer } from 'omnimedia/mcp';
 *
 * const server = createMcpServer({ client: new OmniMedia(), allowedDirs: [process.cwd()], downloadDir: './results' });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(options?: McpServerOptions): McpServer {
  const settings = resolveMcpOptions(options);
  const { client, waitMs } = settings;
  const scrub = keyScrubber(client);
  const files = new LocalFiles(settings.allowedDirs);
  const store = new ServiceTaskStore();
  const calls = new ToolCalls();
  const results: ResultContext = { client, embedImages: settings.embedImages, downloadDir: settings.downloadDir, scrub };
  const server = new McpServer(
    { name: 'omnimedia', title: 'omnimedia', version: VERSION },
    // No tools capability here: the tools' registration declares it, and installs the handlers routeToolCalls takes.
    { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore: store, instructions: INSTRUCTIONS },
  );
  const tools = toolDefinitions(settings);
  /** An outcome as a tool result, rendered within `budget` (ended here); `sent`: the submission was sent. */
  const render = async (outcome: Outcome, budget: RenderBudget, sent = false): Promise<CallToolResult> => {
    try {
      return 'error' in outcome ? errorResult(outcome.error, scrub, outcome.task, sent) : await completedResult(outcome.task, results, budget);
    } finally {
      budget.end();
    }
  };

  /** A notification per status change to the request's progress token, if it gave one. */
  const progressOf = (extra: Extra, mcpTaskId?: string) => {
    const token = extra._meta?.progressToken;
    if (token === undefined) return undefined;
    let count = 0;
    return (task: TaskResult) => {
      const params = { progressToken: token, progress: ++count, message: scrub(statusLine(task)) };
      // After a CreateTaskResult the request has been answered: the notification goes out on
      // its own (over HTTP, on the session's stream when the client keeps one open), marked as
      // the task's.
      const sent = mcpTaskId
        ? server.server.notification({ method: 'notifications/progress', params: { ...params, _meta: { [RELATED_TASK_META_KEY]: { taskId: mcpTaskId } } } })
        : extra.sendNotification({ method: 'notifications/progress', params } satisfies ServerNotification);
      sent.catch(() => {}); // a client that left: nothing to tell
    };
  };

  /**
   * Wait for `call` up to `waitMs` from `since` (the submission is always waited for: no task
   * id before it). `cancels`: whether this request's own cancel cancels the call (the call's
   * request and its redeliveries; not a `get_task` that joined it).
   */
  const waitFor = async (call: ToolCall, extra: Extra, since: number, cancels: boolean): Promise<CallToolResult> => {
    const progress = progressOf(extra);
    if (progress && call.latest) progress(call.latest);
    const off = progress && call.onChange(progress);
    let cancel = () => {};
    const onAbort = () => call.cancel('the request was cancelled');
    if (cancels) extra.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const budget = () => call.budget(since + waitMs, waitMs);
      if (!(await call.accepted.then(() => true, () => false))) return await render(await call.done, budget(), call.sent);
      const stop = new Promise<undefined>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, since + waitMs - Date.now()));
        cancel = () => clearTimeout(timer);
        extra.signal.addEventListener('abort', () => resolve(undefined), { once: true });
      });
      const outcome = await Promise.race([call.done, stop]);
      if (outcome) return await render(outcome, budget(), call.sent);
      return runningResult(call.latest as TaskResult, Date.now() - since, scrub);
    } finally {
      cancel();
      off?.();
      extra.signal.removeEventListener('abort', onAbort);
    }
  };

  /** Feed the MCP task `taskId` from `call`: a status per change, then its result; a cancel of the task cancels the call. */
  const follow = (call: ToolCall, taskId: string, extra: CreateTaskRequestHandlerExtra) => {
    if (!call.feeds(taskId)) return;
    const progress = progressOf(extra, taskId);
    const update = (task: TaskResult) => {
      extra.taskStore.updateTaskStatus(taskId, 'working', scrub(statusLine(task))).catch(() => {});
      progress?.(task);
    };
    if (call.latest) update(call.latest);
    const off = call.onChange(update);
    const settled = call.done.then(async (outcome) => {
      off();
      const result = await render(outcome, call.budget(Date.now() + waitMs, waitMs), call.sent);
      // A task the client cancelled keeps its status; its message and result say what the call did after the cancel.
      if (call.cancelled) return store.settleCancelled(taskId, textOfResult(result), result);
      await extra.taskStore.storeTaskResult(taskId, result.isError ? 'failed' : 'completed', result).catch(() => {});
    });
    store.own(taskId, { cancel: (reason) => call.cancel(reason), settled });
  };

  const register = () => {
    for (const name of SUBMISSION_TOOLS) {
      const { title, description, inputSchema, annotations } = tools[name];
      server.experimental.tasks.registerToolTask(
        name,
        { title, description, inputSchema: inputSchemaOf(inputSchema), annotations, execution: { taskSupport: 'optional' } },
        {
          // Task-augmented calls only: a plain one is routed to `plain` (tool-routes.ts).
          createTask: async (args, extra) => {
            const ttl = extra.taskRequestedTtl;
            const task = await extra.taskStore.createTask(ttl === undefined ? {} : { ttl });
            const call = calls.forRequest(requestKey(extra.sessionId, extra.requestId), prepareSubmission(name, args, settings, files));
            follow(call, task.taskId, extra);
            return { task: (await store.getTask(task.taskId, extra.sessionId)) ?? task };
          },
          getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
          getTaskResult: async (_args, extra) => (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
        },
      );
    }

    const upload = tools.upload_file;
    server.registerTool(
      'upload_file',
      { title: upload.title, description: upload.description, inputSchema: inputSchemaOf(upload.inputSchema), annotations: upload.annotations },
      async (args, extra) => uploadFile(args as Record<string, unknown>, client, files, scrub, extra.signal).catch((error: unknown) => errorResult(error, scrub)),
    );

    const get = tools.get_task;
    server.registerTool(
      'get_task',
      { title: get.title, description: get.description, inputSchema: inputSchemaOf(get.inputSchema), annotations: get.annotations },
      async (args, extra) => {
        const { task_id: taskId, wait = true } = args as { task_id?: unknown; wait?: unknown };
        try {
          if (typeof wait !== 'boolean') throw new ValidationError([{ path: 'wait', message: 'must be true or false' }], 'get_task');
          const call = typeof taskId === 'string' ? calls.forTask(taskId) : undefined;
          if (call && wait) return await waitFor(call, extra, Date.now(), false);
          const since = Date.now();
          const task = wait
            ? await client.tasks.wait(taskId as string, { timeout: waitMs, signal: extra.signal, ...progressHandler(progressOf(extra)) }).catch(async (error: unknown) => {
                if (!(error instanceof WaitTimeoutError)) throw error;
                return error.lastTask ?? (await client.tasks.retrieve(taskId as string, { signal: extra.signal }));
              })
            : await client.tasks.retrieve(taskId as string, { signal: extra.signal });
          if (isSuccessStatus(task.status)) return await render({ task }, new RenderBudget(extra.signal, since + waitMs, waitMs));
          if (isTerminalStatus(task.status)) return errorResult(new TaskFailedError(task), scrub, task);
          return runningResult(task, Date.now() - since, scrub);
        } catch (error) {
          return errorResult(error, scrub);
        }
      },
    );
  };
  routeToolCalls(server, register, {
    submissions: new Set(SUBMISSION_TOOLS),
    taskless: new Set(['upload_file', 'get_task']),
    // A call without task augmentation: its answer within waitMs (the running task after it).
    plain: (name, args, extra) =>
      waitFor(calls.forRequest(requestKey(extra.sessionId, extra.requestId), prepareSubmission(name as SubmissionTool, args, settings, files)), extra, Date.now(), true),
  });
  // A closed connection ends its session: its tasks are no one's to read any more. The service
  // tasks run on (the client's journal keeps them, for `tasks.pending()` with a coordination).
  const onclose = server.server.onclose;
  server.server.onclose = () => {
    calls.cancelAll('the MCP connection closed');
    store.clear();
    onclose?.();
  };
  return server;
}

/** A result's first line: the status message of a cancelled task. */
const textOfResult = (result: CallToolResult): string => {
  const first = result.content[0];
  return first?.type === 'text' ? (first.text.split('\n')[0] ?? '') : '';
};

/** `onProgress` for a wait: the listener on each change of status. */
function progressHandler(listener: ((task: TaskResult) => void) | undefined) {
  if (!listener) return {};
  let last: string | undefined;
  return {
    onProgress: (task: TaskResult) => {
      if (task.status === last) return;
      last = task.status;
      listener(task);
    },
  };
}
