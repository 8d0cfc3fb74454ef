// Each ```ts runnable block of the README and the guides runs, against the mock service, in a
// directory holding only what the page's own instructions make (test/helpers/runnable.ts reads
// them: the sample inputs when its mock command has `--samples`). snippets.test.ts type-checks
// every block; test/package/guide-blocks.ts runs these, saved and run as each page says, in a
// fresh project with the packed tarball.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, it, vi } from 'vitest';
import { sampleFiles, startMockServer } from 'omnimedia/testing';
import { blockFileName, documentationFiles, type CodeBlock } from '../helpers/docs.ts';
import { runnableBlocks, type RunInstruction } from '../helpers/runnable.ts';
import { buildCli } from '../cli/helpers/built-cli.ts';

/** Every runnable block, with its page's instructions for running it. */
const runnable = documentationFiles().flatMap((path) => runnableBlocks(path));

/** A block that starts `npx omnimedia ...` (docs/agents.md's MCP client) needs the package installed where it runs. */
const startsTheBin = (block: CodeBlock) => /command: 'npx',\s*args: \['omnimedia'/.test(block.code);
let built: Promise<string> | undefined;
/** `dir/node_modules/omnimedia` as npm installs it: the built package, its bin linked in .bin. */
async function installPackage(dir: string): Promise<void> {
  const cli = await (built ??= buildCli());
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(dirname(dirname(cli)), join(dir, 'node_modules', 'omnimedia'));
  symlinkSync(cli, join(dir, 'node_modules', '.bin', 'omnimedia'));
}

/** The page's mock command writes the sample inputs into the directory the block runs in. */
const withSamples = (how: RunInstruction) => how.mock[how.mock.indexOf('--samples') + 1] === '.';

describe('run, the blocks marked runnable, against the mock service', async () => {
  const server = await startMockServer({ durations: { pending: 20, image: 50, imageEdit: 50, video: 100, videoEdit: 100 } });
  const dir = mkdtempSync(join(tmpdir(), 'docs-snippets-'));
  const cwd = process.cwd();
  const env = { ...process.env };
  afterAll(async () => {
    process.chdir(cwd);
    process.env = env;
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  });
  const samples = await sampleFiles();

  it.each(runnable.map((r) => [r.block.where, r] as const))('%s', async (_where, { block, how }) => {
    // Each block in a directory of its own, holding the inputs its page's mock command writes.
    const blockDir = mkdtempSync(join(dir, 'block-'));
    if (!('missing' in how) && withSamples(how)) for (const [name, bytes] of samples) writeFileSync(join(blockDir, name), bytes);
    if (startsTheBin(block)) await installPackage(blockDir);
    const file = join(blockDir, blockFileName(block));
    writeFileSync(file, `${block.code}\nexport {};\n`);
    process.chdir(blockDir);
    vi.stubEnv('OMNIMEDIA_BASE_URL', server.url);
    vi.stubEnv('OMNIMEDIA_API_KEY', 'sk-mock');
    try {
      await import(pathToFileURL(file).href);
    } finally {
      process.chdir(cwd);
    }
  }, 180_000);
});
