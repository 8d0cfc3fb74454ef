// omnimedia/mcp through require(): the CJS build requires 'omnimedia' and the MCP SDK by name.
const { OmniMedia } = require('omnimedia');
const { createMcpServer } = require('omnimedia/mcp');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');

const server = createMcpServer({ client: new OmniMedia({ baseURL: process.env.OMNIMEDIA_BASE_URL, apiKey: 'sk-package' }) });
if (!(server instanceof McpServer)) throw new Error('createMcpServer did not give an McpServer of the app’s own SDK');
console.log(`omnimedia/mcp (node ${process.version} cjs): an McpServer`);
