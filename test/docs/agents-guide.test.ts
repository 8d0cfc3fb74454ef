// docs/agents.md stays true: each ```json block parses, and the guide names every flag of
// `omnimedia mcp` and every tool the server lists. (Its ```ts blocks are type-checked with
// every guide's, in snippets.test.ts.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { createMcpServer } from 'omnimedia/mcp';
import { mcp } from '../../src/cli/commands/mcp.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GUIDE = readFileSync(join(ROOT, 'docs/agents.md'), 'utf8');
const blocks = (lang: string) => [...GUIDE.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1] ?? '');

describe('docs/agents.md', () => {
  it('every json block parses', () => {
    const json = blocks('json');
    expect(json.length).toBeGreaterThanOrEqual(2);
    for (const text of json) expect(() => JSON.parse(text)).not.toThrow();
  });

  it('names every flag of omnimedia mcp and every tool', async () => {
    for (const flag of Object.keys(mcp.spec.options)) expect(GUIDE, flag).toContain(`--${flag}`);
    const server = createMcpServer({ client: new OmniMedia({ baseURL: 'http://127.0.0.1:1', logLevel: 'off' }) });
    const [mine, theirs] = InMemoryTransport.createLinkedPair();
    await server.connect(theirs);
    const client = new Client({ name: 'guide', version: '1' });
    await client.connect(mine);
    const { tools } = await client.listTools();
    await client.close();
    for (const tool of tools) expect(GUIDE, tool.name).toContain(`| \`${tool.name}\` |`);
  });
});
