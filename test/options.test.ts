// Every default is written once, in src/options.ts; the tables and option blocks of the README
// and the guides say the same. A default changed in one place and not the other fails here.
import { describe, expect, it } from 'vitest';
import * as defaults from '../src/options.ts';
import { read, section as sectionOf } from './helpers/docs.ts';

/** A section (from its heading to the next of the same or a higher level) of a page. */
const section = (page: string, heading: string) => sectionOf(read(page), heading);

/** 60_000 as the README writes it in code (60_000), in prose (60,000) or in a table (60000). */
const forms = (n: number) => [String(n), n.toLocaleString('en-US'), n.toLocaleString('en-US').replaceAll(',', '_')];
const minutes = (ms: number) => `${ms / 60_000} min`;
const seconds = (ms: number) => `${ms / 1000} s`;

describe('defaults: src/options.ts, the README and the guides agree', () => {
  it('the client block of "The client"', () => {
    const text = section('README.md', '## The client');
    expect(forms(defaults.DEFAULT_TIMEOUT_MS).some((n) => text.includes(`timeout: ${n},`))).toBe(true);
    expect(forms(defaults.DEFAULT_UPLOAD_TIMEOUT_MS).some((n) => text.includes(`uploadTimeout: ${n},`))).toBe(true);
    expect(text).toContain(`maxRetries: ${defaults.DEFAULT_MAX_RETRIES},`);
  });

  it('the wait options table of "Waiting for results"', () => {
    const text = section('docs/waiting.md', '## Options');
    const row = (option: string) => text.match(new RegExp(`^\\| \`${option}\` \\| ([^|]*) \\|`, 'm'))?.[1]?.trim();
    expect(row('initialDelay')).toBe(String(defaults.DEFAULT_INITIAL_DELAY_MS));
    expect(row('interval')).toBe(String(defaults.DEFAULT_INTERVAL_MS));
    expect(row('maxInterval')).toBe(String(defaults.DEFAULT_MAX_INTERVAL_MS));
    expect(row('timeout')).toBe(`${minutes(defaults.DEFAULT_IMAGE_TIMEOUT_MS)} for images, ${minutes(defaults.DEFAULT_VIDEO_TIMEOUT_MS)} for videos and for waits by id`);
    expect(section('docs/waiting.md', '## Many waits, one budget')).toContain(`\`maxPollsPerSecond\` (default ${defaults.DEFAULT_MAX_POLLS_PER_SECOND})`);
    expect(section('README.md', '## The client')).toContain(`maxPollsPerSecond: ${defaults.DEFAULT_MAX_POLLS_PER_SECOND},`);
  });

  it('downloads, the upload cache and callbacks', () => {
    expect(section('docs/uploads-and-files.md', '## Downloads')).toContain(`\`idleTimeout\` (default ${seconds(defaults.DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS)})`);
    expect(defaults.DEFAULT_UPLOAD_CACHE_MARGIN_MS).toBe(60 * 60_000);
    expect(section('docs/uploads-and-files.md', '## Expiry and reuse: the upload cache')).toContain('margin (default 1 hour)');
    expect(read('docs/errors-and-retries.md')).toContain(`\`readTimeout\` (default ${seconds(defaults.DEFAULT_CALLBACK_READ_TIMEOUT_MS)})`);
    expect(defaults.DEFAULT_CALLBACK_MAX_BYTES).toBe(1024 * 1024);
    expect(section('docs/callbacks.md', '## Ready handlers, in every server style')).toContain('body over `maxBytes` (default 1 MiB)');
  });

  it('redisCoordination options of the fleets guide', () => {
    const text = section('docs/fleets.md', '## Options').replace(/\s+/g, ' ');
    expect(text).toContain(`(default \`${defaults.DEFAULT_REDIS_PREFIX}\``);
    expect(text).toContain(`\`leaseMs\` (default ${defaults.DEFAULT_LEASE_MS.toLocaleString('en-US')},`);
    expect(text).toContain(`\`commandTimeoutMs\` (default ${defaults.DEFAULT_COMMAND_TIMEOUT_MS})`);
  });

  it('createProxy options of the browser apps guide', () => {
    const text = section('docs/browser-apps.md', '## Options');
    expect(text).toContain(`timeout: ${forms(defaults.DEFAULT_PROXY_TIMEOUT_MS)[2]},`);
    expect(text).toContain(`idleTimeout: ${forms(defaults.DEFAULT_PROXY_IDLE_TIMEOUT_MS)[2]},`);
  });
});
