import { spawn } from 'node:child_process';
import { UsageError, stringValue } from '../args.ts';
import type { Context } from '../context.ts';
import { EXIT } from '../exit.ts';
import { terminalText } from '../terminal-text.ts';
import type { Command } from './command.ts';

/** Open `url` in the desktop's browser, when there is a desktop (never fails the command). */
function openBrowser(url: string, env: Record<string, string | undefined>): void {
  const desktop = process.platform === 'darwin' || process.platform === 'win32' || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
  if (!desktop) return;
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]] : ['xdg-open', [url]];
  try {
    spawn(command as string, args as string[], { stdio: 'ignore', detached: true }).on('error', () => {}).unref();
  } catch {
    // No opener: the URL is printed.
  }
}

export const studio: Command = {
  spec: {
    name: 'studio',
    summary: 'A local web app for prompts, parameters and results (127.0.0.1 only; history kept in DIR)',
    usage: '[--port N] [--dir DIR] [--mock] [--no-open] [options]',
    options: {
      port: { type: 'string', value: 'N', description: 'Port on 127.0.0.1 (default: a free one)' },
      dir: { type: 'string', value: 'DIR', description: 'Where the journal and the results go (default ./omnimedia-studio/)' },
      mock: { type: 'boolean', description: 'Run the mock service in this process and use it: no key needed' },
      'no-open': { type: 'boolean', description: 'Do not open the browser' },
      'api-key': { type: 'string', value: 'KEY', description: 'API key (default: $OMNIMEDIA_API_KEY)' },
      'base-url': { type: 'string', value: 'URL', description: 'Service address (default: $OMNIMEDIA_BASE_URL)' },
    },
    notes: [
      'Open the printed URL: its token becomes a cookie of the page; nothing else may use the studio.',
      'Every submission is journaled in DIR/journal.jsonl before it is sent; a restart follows running tasks again and sends nothing twice.',
    ],
    examples: ['omnimedia studio --mock', 'OMNIMEDIA_API_KEY=sk-... OMNIMEDIA_BASE_URL=https://api.example.com omnimedia studio --dir ./shoot'],
  },
  async run(ctx: Context) {
    const portText = stringValue(ctx.values, 'port');
    const port = portText === undefined ? 0 : Number(portText);
    if (!/^\d+$/.test(portText ?? '0') || port > 65_535) throw new UsageError(`--port: must be a whole number from 0 to 65535 (got "${portText}")`, '--port');
    const mock = ctx.values.mock === true;
    const apiKey = stringValue(ctx.values, 'api-key') ?? (ctx.io.env.OMNIMEDIA_API_KEY?.trim() || undefined);
    const baseURL = stringValue(ctx.values, 'base-url') ?? (ctx.io.env.OMNIMEDIA_BASE_URL?.trim() || undefined);
    if (!mock && (!apiKey || !baseURL))
      throw new UsageError(`the studio needs ${!apiKey ? 'OMNIMEDIA_API_KEY (or --api-key)' : 'OMNIMEDIA_BASE_URL (or --base-url)'}; or try it with --mock (no key needed)`);
    const log = (line: string) => ctx.io.stderr.write(`${terminalText(line)}\n`);
    // Loaded here: the server, the proxy and the mock cost nothing to the other commands.
    const { startStudio } = await import('../../studio/server.ts');
    let running;
    try {
      running = await startStudio({ dir: stringValue(ctx.values, 'dir') ?? 'omnimedia-studio', port, mock, ...(mock ? {} : { apiKey, baseURL }), warn: log });
    } catch (error) {
      throw new UsageError(`omnimedia studio: ${(error as Error).message}`);
    }
    const lines = [`omnimedia studio: ${running.url}`];
    if (running.mock) lines.push(`  the mock service: ${running.mock.url} (copy as code runs with OMNIMEDIA_BASE_URL=${running.mock.url} OMNIMEDIA_API_KEY=sk-mock)`);
    lines.push('  Open the URL above (it carries the token). Ctrl-C stops the studio.');
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
    if (ctx.values['no-open'] !== true && process.stdout.isTTY) openBrowser(running.url, ctx.io.env);
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) return resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await running.close();
    log('omnimedia studio: stopped; the journal is complete');
    return EXIT.interrupted;
  },
};
