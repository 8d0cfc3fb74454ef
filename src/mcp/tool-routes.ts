import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type ServerResult,
} from '@modelcontextprotocol/sdk/types.js';

/** What a request handler gets besides the request: its signal, session, notification sender... */
type Extra = Parameters<ToolCallback>[0];

/** A `tools/call` handler as the MCP SDK's `Server` takes it. */
export type CallHandler = (request: CallToolRequest, extra: Extra) => Promise<ServerResult>;

/** What this server does with a call before the McpServer's own handler sees it. */
export interface ToolRoutes {
  /** The tools that take a task (`taskSupport: 'optional'`); a call of one without `task` is `plain`'s. */
  submissions: ReadonlySet<string>;
  /** The tools that take none: a task-augmented call of one is refused (-32601). */
  taskless: ReadonlySet<string>;
  /** A submission called without task augmentation: its result, waited for up to waitMs. */
  plain(name: string, args: Record<string, unknown>, extra: Extra): Promise<CallToolResult>;
}

/** The method a request schema is for (its `method` literal). */
const methodOf = (schema: unknown): unknown => (schema as { shape?: { method?: { value?: unknown } } }).shape?.method?.value;

/**
 * Register the tools (`register`), then put `routes` in front of the McpServer's `tools/call`
 * handler (public API: `Server.setRequestHandler`; the McpServer's handler is taken as it
 * installs it, during `register`, and every other call goes to it, tools the app adds later
 * included):
 * - a submission without task augmentation is `routes.plain`: the answer itself, with no task
 *   of the SDK's in between (its own task tools would wait such a call to the end);
 * - a task-augmented call of a tool without task support is -32601 (Method not found), as the
 *   MCP spec says, not the SDK's -32602;
 * - an unknown tool is -32602 (Invalid params), a protocol error as the spec says, not the
 *   McpServer's `isError` result.
 */
export function routeToolCalls(server: McpServer, register: () => void, routes: ToolRoutes): void {
  const inner = server.server;
  let sdk: CallHandler | undefined;
  const install = inner.setRequestHandler;
  inner.setRequestHandler = ((schema: unknown, handler: CallHandler) => {
    if (methodOf(schema) === 'tools/call') sdk = handler;
    else (install as (schema: unknown, handler: unknown) => void).call(inner, schema, handler);
  }) as typeof inner.setRequestHandler;
  try {
    register();
  } finally {
    // The instance's own property goes: the method is the class's again.
    delete (inner as { setRequestHandler?: unknown }).setRequestHandler;
  }
  const fallback = sdk;
  if (!fallback) throw new Error('omnimedia/mcp: the MCP SDK installed no tools/call handler while the tools were registered (an SDK version this package does not support)');
  inner.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {}, task } = request.params;
    if (routes.submissions.has(name) && task === undefined) return routes.plain(name, args, extra);
    if (routes.taskless.has(name) && task !== undefined)
      throw new McpError(ErrorCode.MethodNotFound, `${name} does not run as a task (its execution.taskSupport is forbidden): call it without "task"`);
    const result = await fallback(request, extra);
    const first = (result as CallToolResult).content?.[0];
    // The McpServer answers an unknown tool with this tool result (pinned by test/mcp/errors.test.ts).
    if ((result as CallToolResult).isError && first?.type === 'text' && first.text.endsWith(`Tool ${name} not found`))
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    return result;
  });
}
