// The upload cache (uploadCache) with telemetry: uploads of the same bytes share one request,
// and a later one reuses the record. Each caller's `omnimedia.uploads.*` span must say whether
// it made the request or reused another's (otherwise a span with no request below it, whose
// time went to waiting on an upload in another trace, is unexplained).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { childrenOf, recorder, tree, useContextManager, type Recorder } from '../helpers/otel.ts';
import { fixture } from '../helpers/fixtures.ts';

const png = fixture('tiny.png');
const RECORD = { url: 'https://files.test/1.png', expires_at: Math.floor(Date.now() / 1000) + 86_400 };

let disableContext: () => void;
beforeAll(() => (disableContext = useContextManager('async')));
afterAll(() => disableContext());

/** A client with the cache whose upload endpoint answers when `finish()` is called (at once when `open`). */
function cachedClient(rec: Recorder, open = false) {
  let finish!: () => void;
  const answered = open ? Promise.resolve() : new Promise<void>((resolve) => (finish = resolve));
  let requests = 0;
  const client = new OmniMedia({
    apiKey: 'sk-cache-0123456789abcdef',
    baseURL: 'https://api.test',
    logLevel: 'off',
    uploadCache: true,
    telemetry: rec.telemetry,
    fetch: async (_input, init) => {
      requests++;
      const signal = init?.signal as AbortSignal;
      await Promise.race([answered, new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))]);
      return Response.json(RECORD);
    },
  });
  return { client, finish: () => finish(), requests: () => requests };
}

const uploadSpans = (rec: Recorder) => rec.spans().filter((s) => s.name === 'omnimedia.uploads.image');

describe('upload spans with the upload cache', () => {
  it('a second upload of the same bytes reuses the record: no request, and its span says omnimedia.upload.reused', async () => {
    const rec = recorder();
    const { client, requests } = cachedClient(rec, true);
    await client.uploads.image(png.bytes);
    await client.uploads.image(png.bytes);
    expect(requests()).toBe(1);
    const [first, second] = uploadSpans(rec);
    expect(childrenOf(rec.spans(), first!).map((s) => s.name), tree(rec.spans())).toEqual(['POST /v1/uploads/images']);
    expect(first!.attributes['omnimedia.upload.reused']).toBeUndefined();
    expect(childrenOf(rec.spans(), second!)).toEqual([]);
    expect(second!.attributes).toEqual({ 'omnimedia.operation': 'upload', 'omnimedia.upload.reused': true });
  });

  it('two at once share one request: it hangs under the caller that started it, the other span says reused, even when the first caller left', async () => {
    const rec = recorder();
    const { client, finish, requests } = cachedClient(rec);
    // A starts the request, then B joins it (each hashes the bytes first, on the thread pool:
    // started together, either could start it). B has joined once its getOrUpload call returns.
    const cache = client.uploadCache!;
    let entered = 0;
    const getOrUpload = cache.getOrUpload.bind(cache);
    cache.getOrUpload = (...args) => {
      const waiting = getOrUpload(...args);
      entered++;
      return waiting;
    };
    const a = new AbortController();
    const first = client.uploads.image(png.bytes, { signal: a.signal }).catch((e: unknown) => e);
    await expect.poll(() => requests()).toBe(1);
    const outcomes = [first, client.uploads.image(png.bytes).catch((e: unknown) => e)];
    await expect.poll(() => entered).toBe(2);
    a.abort(new Error('A left'));
    expect(await outcomes[0]).toEqual(new Error('A left'));
    finish();
    expect(await outcomes[1]).toEqual(RECORD);
    expect(requests()).toBe(1);
    const [started, joined] = uploadSpans(rec);
    expect(childrenOf(rec.spans(), started!).map((s) => s.name), tree(rec.spans())).toEqual(['POST /v1/uploads/images']);
    expect(started!.attributes['omnimedia.upload.reused']).toBeUndefined();
    expect(childrenOf(rec.spans(), joined!)).toEqual([]);
    expect(joined!.attributes).toEqual({ 'omnimedia.operation': 'upload', 'omnimedia.upload.reused': true });
  });
});
