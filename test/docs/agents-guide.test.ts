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

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GUIDE = readFileSync(join(ROOT, 'docs/agents.md'), 'utf8');
const blocks = (lang: string) => [...GUIDE.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1] ?? '');

describe('docs/agents.md', () => {
  it('every ts block type-checks on its own', () => {
    const code = blocks('ts');
    expect(code.length).toBeGreaterThanOrEqual(2);
    const paths = (ts.parseConfigFileTextToJson('tsconfig.json', readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')).config as { compilerOptions: { paths: Record<string, string[]> } }).compilerOptions.paths;
    const files = new Map(code.map((text, i) => [join(ROOT, `test/docs/agents/block-${i}.ts`), `${text}\nexport {};\n`]));
    const options: ts.CompilerOptions = {
      strict: true,
      exactOptionalPropertyTypes: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2024.d.ts', 'lib.dom.d.ts'],
      types: ['node'],
      noEmit: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
      baseUrl: ROOT,
      paths,
    };
    const host = ts.createCompilerHost(options);
    const { getSourceFile, fileExists, readFile } = host;
    host.getSourceFile = (name, language, ...rest) => {
      const text = files.get(name);
      return text === undefined ? getSourceFile.call(host, name, language, ...rest) : ts.createSourceFile(name, text, language, true);
    };
    host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
    host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
    const program = ts.createProgram([...files.keys()], options, host);
    const errors = [...files.keys()].flatMap((name) => {
      const source = program.getSourceFile(name);
      return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => `${name}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    });
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
