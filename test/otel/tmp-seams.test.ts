import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { startMockServer } from 'omnimedia/testing';
import { recorder, tree, useContextManager } from '../helpers/otel.ts';
import { fixture } from '../helpers/fixtures.ts';
let off: () => void;
beforeAll(() => (off = useContextManager('async')));
afterAll(() => off());
it('shared upload', async () => {
  const rec = recorder();
  let finish!: () => void;
  const answered = new Promise<void>((r) => (finish = r));
  const client = new OmniMedia({ apiKey: 'k', baseURL: 'https://api.test', logLevel: 'off', uploadCache: true, telemetry: rec.telemetry,
    fetch: async (_i, init) => { const s = init?.signal as AbortSignal; await Promise.race([answered, new Promise((_, rej) => s.addEventListener('abort', () => rej(s.reason)))]); return Response.json({ url: 'https://files.test/1.png', expires_at: Math.floor(Date.now() / 1000) + 86400 }); } });
  const png = fixture('tiny.png');
  const a = new AbortController();
  const ps = [client.uploads.image(png.bytes, { signal: a.signal }), client.uploads.image(png.bytes)].map((p) => p.catch((e) => e));
  await new Promise((r) => setTimeout(r, 100));
  a.abort(new Error('A left'));
  await ps[0];
  finish();
  await Promise.all(ps);
  console.log(tree(rec.spans()));
  console.log(rec.spans().map((s) => [s.name, s.status, s.attributes, s.parentSpanContext?.spanId, s.spanContext().spanId]));
});
it('staged downloads', async () => {
  const rec = recorder();
  const mock = await startMockServer({ durations: { pending: 10, image: 20 } });
  const client = new OmniMedia({ apiKey: 'k', baseURL: mock.url, logLevel: 'off', telemetry: rec.telemetry });
  const task = await client.images.generate({ model: 'omni-image', prompt: 'x', n: 2 }).wait({ initialDelay: 0, interval: 20 });
  rec.reset();
  const dir = mkdtempSync(join(tmpdir(), 'dl-'));
  await client.files.download(task, { to: dir });
  console.log(tree(rec.spans()), readdirSync(dir));
  await mock.close();
});
