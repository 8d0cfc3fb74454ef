// omnimedia/mcp from the installed tarball, with @modelcontextprotocol/sdk beside it (its optional
// peer): `omnimedia mcp` (the installed bin) as a stdio child of the official Client lists the
// tools and runs generate_image against the mock; omnimedia/mcp imported in process gives a
// server whose client is the app's own OmniMedia.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { OmniMedia } from 'omnimedia';
import { createMcpServer } from 'omnimedia/mcp';

const base = process.env.OMNIMEDIA_BASE_URL;
const bin = new URL('../node_modules/.bin/omnimedia', import.meta.url).pathname;
const transport = new StdioClientTransport({ command: bin, args: ['mcp'], env: { PATH: process.env.PATH, OMNIMEDIA_BASE_URL: base, OMNIMEDIA_API_KEY: 'sk-package' }, stderr: 'ignore' });
const client = new Client({ name: 'package-flow', version: '1.0.0' });
const errors = [];
client.onerror = (error) => errors.push(error);
await client.connect(transport);
const { tools } = await client.listTools();
const result = await client.callTool({ name: 'generate_image', arguments: { model: 'omni-image', prompt: 'a lighthouse' } });
await client.close();
if (tools.length !== 6 || result.isError || result.structuredContent?.status !== 'completed' || errors.length > 0)
  throw new Error(`omnimedia mcp over stdio: ${JSON.stringify({ tools: tools.length, result, errors: errors.map(String) }).slice(0, 600)}`);

const server = createMcpServer({ client: new OmniMedia({ baseURL: base, apiKey: 'sk-package' }) });
const [mine, theirs] = InMemoryTransport.createLinkedPair();
await server.connect(theirs);
const inProcess = new Client({ name: 'package-flow', version: '1.0.0' });
await inProcess.connect(mine);
const listed = await inProcess.listTools();
await inProcess.close();
if (listed.tools.length !== 6) throw new Error('omnimedia/mcp in process: tools missing');
console.log(`omnimedia mcp (stdio, installed bin) and omnimedia/mcp (node ${process.version} esm): ${tools.length} tools, ${result.structuredContent.task_id} completed`);
