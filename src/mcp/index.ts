/**
 * `omnimedia/mcp`: a Model Context Protocol server whose tools are the service's tasks, for AI
 * agents (Claude Desktop, Cursor, VS Code, any MCP client), on the official
 * `@modelcontextprotocol/sdk` (an optional peer). `npx omnimedia mcp` runs it over stdio or
 * Streamable HTTP. See docs/agents.md.
 *
 * @module omnimedia/mcp
 */
export { createMcpServer } from './server.ts';
export type { McpServerOptions } from './options.ts';
