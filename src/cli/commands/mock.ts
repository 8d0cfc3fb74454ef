import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OUTPUT_OPTIONS } from '../args.ts';
import { EXIT } from '../exit.ts';
import { UsageError, stringValue } from '../args.ts';
import type { Command } from './command.ts';

/** Writes each sample not yet in `dir`: a file of the user's own by the same name is never replaced. */
async function writeSamples(dir: string, files: Map<string, Uint8Array>): Promise<{ written: string[]; kept: string[] }> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  const kept: string[] = [];
  for (const [name, bytes] of files) {
    try {
      await writeFile(join(dir, name), bytes, { flag: 'wx' });
      written.push(name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      kept.push(name);
    }
  }
  return { written, kept };
}

export const mock: Command = {
  spec: {
    name: 'mock',
    summary: 'Run the mock service (omnimedia/testing) on this machine, until Ctrl-C. Any API key works.',
    usage: '[--port PORT] [options]',
    options: {
      port: { type: 'string', value: 'PORT', description: 'Port to listen on, on 127.0.0.1 (default: a free one)' },
      samples: {
        type: 'string',
        value: 'DIR',
        description: "Write the guides' sample inputs into DIR first (photo.png, mask.png, cat.png, sofa.png, lamp.png, clip.mp4; a file already there is kept)",
      },
      json: OUTPUT_OPTIONS.json!,
    },
    examples: [
      'omnimedia mock --port 4010',
      'omnimedia mock --port 4010 --samples .',
      'export OMNIMEDIA_BASE_URL=http://127.0.0.1:4010 OMNIMEDIA_API_KEY=sk-mock',
      'omnimedia images generate -m omni-image -p "a fox" --wait --out .',
    ],
  },
  async run(ctx) {
    const portText = stringValue(ctx.values, 'port');
    const port = portText === undefined ? 0 : Number(portText);
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      throw new UsageError(`--port: must be a whole number from 0 to 65535 (got "${portText}")`, '--port');
    // Loaded here: the mock (and its HTTP server) costs nothing to the other commands.
    const { sampleFiles, startMockServer } = await import('omnimedia/testing');
    const samplesDir = stringValue(ctx.values, 'samples');
    const samples = samplesDir === undefined ? undefined : await writeSamples(samplesDir, await sampleFiles());
    const server = await startMockServer({ port });
    const url = server.url.replace(/\/$/, '');
    ctx.output.result({ base_url: url, ...(samples ? { samples } : {}) }, () =>
      [
        `Mock omnimedia service on ${url}`,
        ...(samples ? [`Sample inputs in ${samplesDir}: ${samples.written.concat(samples.kept).join(', ')}${samples.kept.length ? ` (kept as they were: ${samples.kept.join(', ')})` : ''}`] : []),
        '',
        `  export OMNIMEDIA_BASE_URL=${url}`,
        '  export OMNIMEDIA_API_KEY=sk-mock   # any key works',
        '',
        'Press Ctrl-C to stop.',
      ].join('\n'),
    );
    // Serve until Ctrl-C (or SIGTERM, which main turns into the same abort).
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.close();
    ctx.output.message('mock service stopped');
    return EXIT.ok;
  },
};
