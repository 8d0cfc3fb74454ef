// The CLI speaks in its own words: a missing key names --api-key (not the SDK's constructor
// option), and a mistyped flag gets a "did you mean" instead of Node's raw parseArgs message.
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/run.ts';

const BASE = ['--base-url', 'http://127.0.0.1:9'];

describe('cli hints', () => {
  it('a missing key names --api-key and OMNIMEDIA_API_KEY, not the constructor option', async () => {
    const run = await runCli(['images', 'generate', '-m', 'm', '-p', 'p', ...BASE], { env: {} });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('images.generate needs an API key: pass --api-key KEY or set OMNIMEDIA_API_KEY');
    expect(run.stderr).not.toMatch(/apiKey|proxyURL/);
  });

  it.each([
    ['--promt', '--prompt'],
    ['--sise', '--size'],
    ['--qualty', '--quality'],
    ['--api-kye', '--api-key'],
  ])('%s: unknown, did you mean %s?', async (typo, meant) => {
    const run = await runCli(['images', 'generate', '-m', 'm', typo, 'x', ...BASE]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`error: unknown option ${typo} (did you mean ${meant}?). See: omnimedia images generate --help\n`);
  });

  it('a flag like none of them gets no guess, and no word of parseArgs', async () => {
    const run = await runCli(['images', 'generate', '--zebra', ...BASE]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('error: unknown option --zebra. See: omnimedia images generate --help\n');
  });
});
