// docs/agents.md stays true: each ```ts block type-checks as a complete program (strict,
// nodenext, against the package's sources by its names), each ```json block parses, and the
// guide names every flag of `omnimedia mcp` and every tool the server lists.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { createMcpServer } from 'omnimedia/mcp';
import { mcp } from '../../src/cli/commands/mcp.ts';
import { diagnosticsOf } from '../helpers/type-check.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GUIDE = readFileSync(join(ROOT, 'docs/agents.md'), 'utf8');
const blocks = (lang: string) => [...GUIDE.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1] ?? '');

describe('docs/agents.md', () => {
  it('every ts block type-checks on its own', () => {
    const code = blocks('ts');
    expect(code.length).toBeGreaterThanOrEqual(2);
    const files = new Map(code.map((text, i) => [join(ROOT, `test/docs/agents/block-${i}.ts`), `${text}\nexport {};\n`]));
    const errors = [...diagnosticsOf(files, { exactOptionalPropertyTypes: true })].flatMap(([name, diagnostics]) =>
      diagnostics.map((d) => `${name}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`),
    );
    expect(errors).toEqual([]);
  }, 120_000);

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
