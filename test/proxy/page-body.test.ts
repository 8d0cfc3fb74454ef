// The page's body as the proxy reads it: however the page's HTTP framing cut it up, what the
// proxy keeps and hands on is a few reads of at least 16 KiB (a 1 MiB JSON body in one-byte
// chunks grew the heap by 272 MB when every chunk was kept as it came).
import { describe, expect, it } from 'vitest';
import { pageBody, readJson } from '../../src/proxy/page-body.ts';

function oneByteChunks(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at === bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, ++at));
    },
  });
}

describe('the page\u2019s body', () => {
  it('in one-byte chunks is read in reads of 16 KiB, the last one excepted', async () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ model: 'm', prompt: 'p', padding: 'x'.repeat(200 * 1024) }));
    const page = pageBody(oneByteChunks(bytes), undefined, 5_000);
    const reads: number[] = [];
    for (let chunk = await page.read(); chunk; chunk = await page.read()) reads.push(chunk.byteLength);
    page.exchange.close();
    expect(reads.reduce((a, b) => a + b, 0)).toBe(bytes.length);
    expect(reads.slice(0, -1).every((n) => n >= 16 * 1024)).toBe(true);
    expect(reads.length).toBeLessThanOrEqual(Math.ceil(bytes.length / (16 * 1024)));
  });

  it('in one-byte chunks still parses as the same JSON', async () => {
    const value = { model: 'm', prompt: 'caf\u00e9 \u{1F98A}', n: 2 };
    const page = pageBody(oneByteChunks(new TextEncoder().encode(JSON.stringify(value))), undefined, 5_000);
    expect(await readJson(page.read, undefined)).toEqual(value);
    page.exchange.close();
  });
});
