// client.batch()'s engine where it runs; a page's build (the browser twin) has none:
// there client.batch() is a ValidationError naming `jobs`, before anything is sent.
import { describe, expect, it } from 'vitest';
import { ValidationError } from 'omnimedia';
import { runClientBatch as inPage } from '../../src/batch/engine-entry.browser.ts';
import { runClientBatch } from '../../src/batch/engine-entry.ts';
import type { BatchPorts } from '../../src/batch/ports.ts';

const ports = {} as BatchPorts;

describe('the batch engine entry', () => {
  it('in a page: a ValidationError naming jobs, at the first line asked for', async () => {
    const lines = inPage(ports, [], undefined);
    const error = await lines.next().then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues[0]).toMatchObject({ path: 'jobs', message: expect.stringContaining('Node, Deno or Bun') });
  });

  it('in Node: the engine (a dry run of an empty list yields nothing)', async () => {
    const lines: unknown[] = [];
    for await (const line of runClientBatch(ports, [], { dryRun: true })) lines.push(line);
    expect(lines).toEqual([]);
  });
});
