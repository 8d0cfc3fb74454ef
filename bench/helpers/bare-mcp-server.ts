// The anchor of the mcp bench's memory row: an MCP server with nothing of ours, the official
// SDK's McpServer on stdio with one trivial tool.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'bare', version: '1.0.0' });
server.registerTool('ping', { description: 'pong' }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
await server.connect(new StdioServerTransport());
