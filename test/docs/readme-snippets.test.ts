// The README's TypeScript blocks stay true: each ```ts block is type-checked as a module of its
// own under --strict with module/moduleResolution nodenext, against the package's entries (their
// sources, by the package's names), and each ```ts runnable block is also run against the mock
// service. A block may use the names of 'omnimedia' without importing them (the README shows
// imports once) and the free variables of a fragment (`client`, `task`, `fox`...), declared
// below with the types a reader would have; everything else it uses, it must import.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockServer } from 'omnimedia/testing';
import { exportedNames } from '../helpers/exported-names.ts';
import { diagnosticsOf } from '../helpers/type-check.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

interface Block {
  line: number;
  code: string;
  runnable: boolean;
}

/** Every ```ts block, with the README line it starts on. */
export function tsBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  for (const match of markdown.matchAll(/^```ts( runnable)?\n([\s\S]*?)^```$/gm)) {
    blocks.push({ line: markdown.slice(0, match.index).split('\n').length + 1, code: match[2] ?? '', runnable: match[1] !== undefined });
  }
  return blocks;
}

const ROOT_NAMES = exportedNames(join(ROOT, 'src/index.ts')).filter((name) => name !== 'default');

/** The block, with an import of each root name it uses but neither imports nor declares. */
function asModule(code: string): string {
  const imported = new Set([...code.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}/g)].flatMap((m) => (m[1] ?? '').split(',').map((n) => n.replace(/\btype\b/, '').split(' as ').pop()!.trim())));
  const declared = new Set([...code.matchAll(/\b(?:const|let|var|function|class)\s+([A-Za-z_$][\w$]*)/g)].map((m) => m[1]));
  const used = ROOT_NAMES.filter((name) => !imported.has(name) && !declared.has(name) && new RegExp(`(?<![\\w$.'"])${name.replace('$', '\\$')}(?![\\w$'"])`).test(code));
  return `${used.length ? `import { ${used.join(', ')} } from 'omnimedia';\n` : ''}${code}\nexport {};\n`;
}

/**
 * The free variables of the README's fragments, as a reader has them: the client they made, a
 * task they waited for, a request their server got. One declaration each, shared by all blocks.
 */
const CONTEXT = `
type Task = import('omnimedia').TaskResult;
type Identity = { id: string; plan?: string };
declare const client: import('omnimedia').OmniMedia;
declare const task: Task;
declare const taskId: string;
declare const id: string;
declare const task_id: string;
declare const url: string;
declare const prompts: string[];
declare const fox: import('omnimedia').ImageUpload;
declare const photo: import('omnimedia').ImageUpload;
declare const maskUpload: import('omnimedia').ImageUpload;
declare const sofaUpload: import('omnimedia').ImageUpload;
declare const maskBytes: Uint8Array;
declare const bytes: Uint8Array;
declare const body: string;
declare const input: { files: [File] };
declare const webStream: ReadableStream<Uint8Array>;
declare const fs: typeof import('node:fs');
declare const http: typeof import('node:http');
declare const res: import('node:http').ServerResponse;
declare const request: Request;
declare const signal: AbortSignal;
declare const userLeft: boolean;
declare const apiKey: string;
declare const baseURL: string;
declare const logger: import('omnimedia').Logger;
declare const coordination: import('omnimedia/coordination').Coordination;
declare const onProgress: (progress: import('omnimedia/resources').DownloadProgress) => void;
declare const onTask: (task: Task) => void | Promise<void>;
declare const redis: import('ioredis').Redis;
declare const expressApp: import('express').Express;
declare const fastify: import('fastify').FastifyInstance;
declare const app: import('hono').Hono;
declare const omni: import('omnimedia/ai-sdk').OmniMediaProvider;
declare const db: { taskOwners: { insert(row: { task_id: string; owner: string | number }): Promise<void>; get(taskId: string): Promise<{ owner: string | number } | undefined> } };
declare function authorize(request: Request): Identity | null;
declare function sessionUser(request: Request): Identity | null;
declare function saveResult(taskId: string, outputs: Task['data']): Promise<void>;
declare function save(task: Task): void;
declare function render(status: string): void;
declare function show(url: string | undefined): void;
declare function createWebhookEndpoint(): Promise<{ url: string; received: PromiseLike<import('@ai-sdk/provider').Experimental_VideoModelV4OperationWebhook> }>;
`;

/**
 * Blocks not type-checked, each with why: they import packages this repository does not
 * install (a reader's own app has them).
 */
const UNCHECKED: Record<string, string> = {
  '// instrumentation.ts, loaded before the app': "OpenTelemetry's NodeSDK and OTLP exporters are the app's, not devDependencies here",
};
const checked = (block: Block) => !Object.keys(UNCHECKED).some((first) => block.code.startsWith(first));

function typeErrors(blocks: Block[]): string[] {
  const files = new Map<string, string>([[join(ROOT, 'test/docs/readme/context.d.ts'), CONTEXT]]);
  for (const block of blocks) files.set(join(ROOT, `test/docs/readme/line-${block.line}.ts`), asModule(block.code));
  const errors: string[] = [];
  for (const [name, diagnostics] of diagnosticsOf(files)) {
    for (const d of diagnostics) {
      const line = d.start === undefined || !d.file ? 0 : d.file.getLineAndCharacterOfPosition(d.start).line;
      const block = /line-(\d+)\.ts$/.exec(name)?.[1];
      // The README line: the block's first line, less the import line added above it.
      const imports = (files.get(name) ?? '').startsWith("import {") && !blocks.find((b) => String(b.line) === block)?.code.startsWith('import {') ? 1 : 0;
      const where = block ? `README.md:${Number(block) + line - imports}` : name;
      errors.push(`${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  return errors;
}

describe("the README's TypeScript", () => {
  const blocks = tsBlocks(README);

  it('has blocks, and runnable ones', () => {
    expect(blocks.length).toBeGreaterThan(20);
    expect(blocks.filter((b) => b.runnable).length).toBeGreaterThan(0);
  });

  it('type-checks, every block, under --strict with nodenext', () => {
    expect(typeErrors(blocks.filter(checked))).toEqual([]);
    expect(blocks.filter((b) => !checked(b)).length).toBe(Object.keys(UNCHECKED).length);
  }, 120_000);

  describe('runs the blocks marked runnable against the mock service', async () => {
    const server = await startMockServer({ durations: { pending: 20, image: 50, imageEdit: 50, video: 100, videoEdit: 100 } });
    const dir = mkdtempSync(join(tmpdir(), 'readme-'));
    const cwd = process.cwd();
    const env = { ...process.env };
    afterAll(async () => {
      process.chdir(cwd);
      process.env = env;
      rmSync(dir, { recursive: true, force: true });
      await server.close();
    });
    // The files the blocks name, in the directory they run in.
    for (const name of ['photo.png', 'cat.png', 'sofa.png', 'lamp.png', 'mask.png']) copyFileSync(join(ROOT, 'test/fixtures/tiny.png'), join(dir, name));
    copyFileSync(join(ROOT, 'test/fixtures/tiny.mp4'), join(dir, 'clip.mp4'));

    it.each(blocks.filter((b) => b.runnable).map((b) => [b.line, b] as const))('README.md:%i', async (line, block) => {
      const file = join(dir, `line-${line}.ts`);
      writeFileSync(file, asModule(block.code));
      process.chdir(dir);
      process.env.OMNIMEDIA_BASE_URL = server.url;
      process.env.OMNIMEDIA_API_KEY = 'sk-mock';
      try {
        await import(pathToFileURL(file).href);
      } finally {
        process.chdir(cwd);
      }
    }, 60_000);
  });
});
