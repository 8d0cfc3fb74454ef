import { request } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { createMockService, startMockServer, type MockService } from 'omnimedia/testing';
import { UploadStore } from '../../src/testing/uploads.ts';
import { KEY, photo, post, upload } from './mock-helpers.ts';

// The mock bounded like the proxy (a port any page can reach: a multipart POST needs no
// preflight): uploads counted while they stream, refused with 413 at the spec's limits; JSON
// bodies capped; the lists it keeps bounded. Memory figures: bench/suites/mock-memory.ts.
const MiB = 1024 * 1024;
const MP4_HEAD = Uint8Array.from([0, 0, 0, 0x20, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d, 0, 0, 2, 0, 0x69, 0x73, 0x6f, 0x6d]);
const BOUNDARY = 'bounds-test-boundary';

/** A body of `head`, `zeros` zero bytes (in 1 MiB reads) and `tail`, that counts what its reader pulled. */
function countedBody(head: Uint8Array, zeros: number, tail = new Uint8Array()): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  let sentZeros = 0;
  let stage: 'head' | 'zeros' | 'tail' | 'done' = 'head';
  const chunk = new Uint8Array(MiB);
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        let part: Uint8Array;
        if (stage === 'head') [part, stage] = [head, 'zeros'];
        else if (stage === 'zeros' && sentZeros < zeros) {
          part = chunk.subarray(0, Math.min(MiB, zeros - sentZeros));
          sentZeros += part.byteLength;
        } else if (stage !== 'done') [part, stage] = [tail, 'done'];
        else return controller.close();
        pulled += part.byteLength;
        controller.enqueue(part);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled };
}

function multipartHead(filename: string, first: Uint8Array): Uint8Array {
  const opening = new TextEncoder().encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const head = new Uint8Array(opening.byteLength + first.byteLength);
  head.set(opening);
  head.set(first, opening.byteLength);
  return head;
}

function postStream(mock: MockService, path: string, body: ReadableStream<Uint8Array>, contentType: string): Promise<Response> {
  return mock.handle(
    new Request(`${mock.baseURL}${path}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': contentType }, body, duplex: 'half' } as RequestInit),
  );
}

/** An upload of `size` bytes (`first`, then zeros) as a streamed multipart form, as the SDK sends one in Node. */
function streamUpload(mock: MockService, kind: 'images' | 'videos', first: Uint8Array, size: number) {
  const body = countedBody(multipartHead(`f.${kind === 'images' ? 'png' : 'mp4'}`, first), size - first.byteLength, new TextEncoder().encode(`\r\n--${BOUNDARY}--\r\n`));
  return { response: postStream(mock, `/v1/uploads/${kind}`, body.stream, `multipart/form-data; boundary=${BOUNDARY}`), pulled: body.pulled };
}

describe('uploads are counted while they stream', () => {
  it.each([
    ['images', 25, photo().subarray(0, 64)],
    ['videos', 50, MP4_HEAD],
  ] as const)('a 120 MiB upload to %s: 413 once %i MiB are passed, the rest never read (was 400 after reading it all)', async (kind, limit, first) => {
    const mock = createMockService();
    const sent = streamUpload(mock, kind, first, 120 * MiB);
    const response = await sent.response;
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: { code: 'too_large', param: 'file', message: expect.stringMatching(new RegExp(`^file must be at most ${limit} MiB .*; the upload passed it`)) },
    });
    expect(sent.pulled()).toBeLessThan((limit + 2) * MiB);
    expect(mock.uploads()).toEqual([]);
  });

  it('an upload exactly at the limit is taken', async () => {
    const mock = createMockService();
    const response = await streamUpload(mock, 'videos', MP4_HEAD, 50 * MiB).response;
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ bytes: 50 * MiB, content_type: 'video/mp4' });
  });

  it('on a real server: a declared Content-Length past the limit is a 413 before any of the body is read', async () => {
    const server = await startMockServer();
    try {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${server.url}/v1/uploads/videos`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(600 * MiB) },
        });
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (part: string) => (text += part));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        // A first write only: the answer must not wait for the other 600 MiB.
        req.write(multipartHead('big.mp4', MP4_HEAD));
      });
      expect(status).toBe(413);
      expect(JSON.parse(body).error.message).toMatch(/the request declares 629,145,600 bytes/);
    } finally {
      await server.close();
    }
  });

  it('a FormData body refused mid-read does not crash the process (Node throws when one is cancelled)', async () => {
    const mock = createMockService();
    // A second field: refused at the first part's end, mid-read.
    const response = await upload(mock, 'images', photo(), { extra: (form) => form.append('other', new File([new Uint8Array(8 * MiB)], 'x')) });
    expect(response.status).toBe(400);
    // An unhandled rejection from the body stream would fail this file.
    await new Promise((resolve) => setImmediate(resolve));
  });
});

describe('JSON bodies are capped', () => {
  it('past 1 MiB: 413 the moment the count passes it, the rest never read (was read whole)', async () => {
    const mock = createMockService();
    const body = countedBody(new TextEncoder().encode('{"model":"omni-image","prompt":"'), 64 * MiB, new TextEncoder().encode('"}'));
    const response = await postStream(mock, '/v1/images/generations', body.stream, 'application/json');
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: { code: 'too_large', message: 'the JSON body is larger than 1,048,576 bytes' } });
    expect(body.pulled()).toBeLessThan(3 * MiB);
    expect(mock.tasks()).toEqual([]);
  });

  it('a submission under the cap is read as before', async () => {
    const mock = createMockService();
    const response = await post(mock, '/v1/images/generations', { model: 'omni-image', prompt: 'x'.repeat(4000) });
    expect(response.status).toBe(200);
  });
});

describe('what the mock keeps is bounded', () => {
  it('the last 1,000 callback delivery tries (was every one)', async () => {
    vi.useFakeTimers();
    try {
      const mock = createMockService({
        durations: { pending: 0, image: 0 },
        callbackRetryDelays: Array.from({ length: 1_200 }, () => 1),
        fetch: async () => new Response('no', { status: 500 }),
      });
      await post(mock, '/v1/images/generations', { model: 'omni-image', prompt: 'a fox', callback_url: 'https://app.test/hook' });
      await vi.advanceTimersByTimeAsync(2_000);
      expect(mock.callbackDeliveries.at(-1)?.attempt).toBe(1_201);
      expect(mock.callbackDeliveries).toHaveLength(1_000);
      expect(mock.callbackDeliveries[0]?.attempt).toBe(202);
      mock.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('the last 10,000 tasks: an older id is a 404 (was every task forever)', async () => {
    const mock = createMockService();
    const ids: string[] = [];
    for (let i = 0; i < 10_001; i++) {
      const response = await post(mock, '/v1/images/generations', { model: 'omni-image', prompt: 'p' });
      ids.push(((await response.json()) as { task_id: string }).task_id);
    }
    expect(mock.tasks()).toHaveLength(10_000);
    expect((await mock.handle(new Request(`${mock.baseURL}/v1/tasks/${ids[0]}`))).status).toBe(404);
    expect((await mock.handle(new Request(`${mock.baseURL}/v1/tasks/${ids[1]}`))).status).toBe(200);
  });

  it('uploads: the last records, and their bytes up to the budget; the oldest bytes are served no more, their records stay (was every byte for 24 h)', async () => {
    // The store with small limits (the mock's: 10,000 records, 256 MiB of bytes).
    const store = new UploadStore({ uploads: 4, bytes: 3 * MiB });
    const urls: string[] = [];
    for (let i = 0; i < 5; i++) {
      const body = countedBody(multipartHead('v.mp4', MP4_HEAD), MiB - MP4_HEAD.byteLength, new TextEncoder().encode(`\r\n--${BOUNDARY}--\r\n`));
      const request = new Request('https://mock.test/v1/uploads/videos', { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: body.stream, duplex: 'half' } as RequestInit);
      urls.push((await store.accept(request, 'video', 'https://mock.test')).id);
    }
    expect(store.all().map((upload) => upload.id)).toEqual(urls.slice(1)); // 4 records: the first went
    // 4 MiB of bytes for a 3 MiB budget: the oldest record kept lost its bytes.
    expect(urls.map((id) => store.get(id) !== undefined)).toEqual([false, false, true, true, true]);
    expect(store.all()[0]?.record).toMatchObject({ bytes: MiB });
  });
});
