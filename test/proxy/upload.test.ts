// "Uploads stream": through the proxy a file is sniffed from its first bytes, counted as it
// streams (413 the moment it passes the limit, the upstream request aborted), timed out when
// it stalls (408), and re-framed: the service gets one `file` part of our making, whatever the
// page's form held. The page side is node:http requests writing as they please.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { mediaBytes, type MediaKind } from '../helpers/media-bytes.ts';
import { KEY, SESSION, startProxy, startRecorder, type Mode, type Recorded, type RunningProxy } from './helpers.ts';

const MiB = 1024 * 1024;
const BOUNDARY = '----PageBoundary7MA4YWxkTrZu0gW';

const partHead = (filename = 'photo.png', extra = '') =>
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n${extra}Content-Type: application/octet-stream\r\n\r\n`);
const closing = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

interface PageAnswer {
  status: number;
  body: string;
  /** Bytes the page had written when the answer came. */
  writtenWhenAnswered: number;
}

/**
 * A page uploading `chunks()` over a raw socket (written as the socket takes them) to the proxy;
 * resolves with the answer as soon as it comes, even mid-upload (a refusal may close the socket
 * while the page still writes: that is no reason to miss the answer). `stallAfter`: stop
 * writing (not ending) after so many bytes.
 */
function pageUpload(port: number, path: string, chunks: () => Iterable<Uint8Array>, options: { contentLength?: number; stallAfter?: number; close?: boolean } = {}): Promise<PageAnswer> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answeredAt: number | undefined;
    const received: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    const length = options.contentLength !== undefined ? `Content-Length: ${options.contentLength}\r\n` : 'Transfer-Encoding: chunked\r\n';
    const chunked = options.contentLength === undefined;
    socket.write(
      `POST /api/omnimedia/v1/uploads/${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nCookie: ${SESSION}\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n${length}${options.close ? 'Connection: close\r\n' : ''}\r\n`,
    );
    /** The answer, once it has all arrived (by its length, or its last chunk). */
    const complete = () => {
      const raw = Buffer.concat(received).toString('latin1');
      const headEnd = raw.indexOf('\r\n\r\n');
      if (headEnd === -1) return undefined;
      const head = raw.slice(0, headEnd);
      let body = raw.slice(headEnd + 4);
      const declared = /content-length: (\d+)/i.exec(head);
      if (declared && Buffer.byteLength(body, 'latin1') < Number(declared[1])) return undefined;
      if (/transfer-encoding: chunked/i.test(head)) {
        if (!body.endsWith('0\r\n\r\n')) return undefined;
        body = body.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '');
      }
      return { status: Number(head.split(' ')[1]), body: Buffer.from(body, 'latin1').toString('utf8') };
    };
    socket.on('data', (chunk: Buffer) => {
      answeredAt ??= written;
      received.push(chunk);
      const answer = complete();
      if (answer) {
        socket.destroy();
        resolve({ ...answer, writtenWhenAnswered: answeredAt });
      }
    });
    socket.on('error', () => {}); // EPIPE / ECONNRESET after a refusal: the answer is what counts
    socket.on('close', () => reject(new Error(`no complete answer (${written} bytes written): ${Buffer.concat(received).toString('latin1').slice(0, 200)}`)));
    const iterator = chunks()[Symbol.iterator]();
    const send = (bytes: Uint8Array) => {
      if (!chunked) return socket.write(bytes);
      socket.write(`${bytes.byteLength.toString(16)}\r\n`);
      socket.write(bytes);
      return socket.write('\r\n');
    };
    // One chunk per turn of the event loop, as a browser's upload does: the answer is read as
    // soon as it arrives (a server that closes after a refusal resets the socket, and a reset
    // drops what the page has not read yet).
    const pump = () => {
      if (answeredAt !== undefined || socket.destroyed) return;
      if (options.stallAfter !== undefined && written >= options.stallAfter) return;
      const { done, value } = iterator.next();
      if (done) return void (chunked ? socket.write('0\r\n\r\n') : undefined);
      written += value.byteLength;
      if (send(value)) setImmediate(pump);
      else socket.once('drain', pump);
    };
    pump();
  });
}

/** A form of one file of `size` bytes of `kind`, in 64 KiB chunks. */
function* form(kind: MediaKind, size: number, head = partHead(), tail = closing): Iterable<Uint8Array> {
  yield head;
  const bytes = mediaBytes(kind, Math.min(size, 4 * MiB));
  for (let sent = 0; sent < size; ) {
    const n = Math.min(64 * 1024, size - sent);
    yield bytes.subarray(sent % (4 * MiB), (sent % (4 * MiB)) + n);
    sent += n;
  }
  yield tail;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The file of a recorded upload, parsed by the platform, and the raw part headers. */
async function recordedFile(request: Recorded): Promise<{ file: File; partHeaders: string }> {
  const body = request.body;
  const partHeaders = body.subarray(0, body.indexOf('\r\n\r\n')).toString('latin1');
  const parsed = await new Response(new Uint8Array(body), { headers: { 'content-type': String(request.headers['content-type']) } }).formData();
  expect([...parsed.keys()]).toEqual(['file']);
  return { file: parsed.get('file') as File, partHeaders };
}

/** Until the upstream side of `request` has ended one way or another. */
async function settled(requests: Recorded[], count = 1): Promise<void> {
  for (let i = 0; i < 200 && requests.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 100));
}

describe.each(['node', 'fetch'] as Mode[])('uploads through the proxy (%s handler)', (mode) => {
  let upstream: Awaited<ReturnType<typeof startRecorder>>;
  let proxy: RunningProxy;

  beforeAll(async () => {
    upstream = await startRecorder((request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: 'https://files.example/u/1', bytes: request.body.length }));
    });
    // The default idle timeout: a busy machine may pause a 45 MiB transfer for longer than a
    // short one (CI's Node 22 run saw a 400 ms pause); the stall test below has its own.
    proxy = await startProxy({ upstream: upstream.url }, mode);
  });
  afterEach(() => void (upstream.requests.length = 0));
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });

  it('a 45 MiB video arrives upstream byte-identical, as one file part of our framing with the sniffed type', { timeout: 60_000 }, async () => {
    const size = 45 * MiB;
    const expected = createHash('sha256');
    for (const chunk of form('mp4', size, Buffer.alloc(0), Buffer.alloc(0))) expected.update(chunk);
    const answer = await pageUpload(proxy.port, 'videos', () => form('mp4', size, partHead('clip.mp4')));
    expect(answer.status, answer.body).toBe(200);
    const [request] = upstream.requests;
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    const { file, partHeaders } = await recordedFile(request as Recorded);
    expect(file.size).toBe(size);
    expect(sha256(new Uint8Array(await file.arrayBuffer()))).toBe(expected.digest('hex'));
    expect(file.type).toBe('video/mp4');
    expect(file.name).toBe('clip.mp4');
    expect(partHeaders).not.toContain(BOUNDARY);
  });

  it('a GIF to the image upload is a 400 naming the rule; nothing is forwarded', async () => {
    const answer = await pageUpload(proxy.port, 'images', () => form('gif', 2048, partHead('cat.png')));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.issues).toEqual([{ path: 'file', message: 'must be PNG, JPEG, WebP (found GIF)' }]);
    await settled(upstream.requests, 0);
    expect(upstream.requests).toEqual([]);
  });

  it('past 25 MiB (no Content-Length): 413 at that moment, the upstream request aborted, no upload completed', { timeout: 30_000 }, async () => {
    const answer = await pageUpload(proxy.port, 'images', () => form('png', 40 * MiB));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.issues[0].message).toMatch(/^must be at most 25 MiB \(26,214,400 bytes\); the upload passed it/);
    // Answered near the limit, not after the 40 MiB (the page's socket buffers a few MiB).
    expect(answer.writtenWhenAnswered).toBeLessThan(34 * MiB);
    await settled(upstream.requests);
    const [request] = upstream.requests;
    expect(request?.complete).toBe(false);
    expect(request!.body.length).toBeLessThanOrEqual(25 * MiB + 1024);
    expect(request!.body.includes(`--${BOUNDARY}`)).toBe(false);
  });

  it('a 200 MB video is refused at 50 MiB, and the upstream aborted', { timeout: 60_000 }, async () => {
    const answer = await pageUpload(proxy.port, 'videos', () => form('mp4', 200 * 1000 * 1000));
    expect(answer.status).toBe(413);
    expect(answer.writtenWhenAnswered).toBeLessThan(60 * MiB);
    await settled(upstream.requests);
    expect(upstream.requests[0]?.complete).toBe(false);
  });

  it.runIf(mode === 'node')('a refusal reaches a page that asked to close the connection (the rest of its body is dropped first)', async () => {
    const answer = await pageUpload(proxy.port, 'images', () => form('gif', 256 * 1024), { close: true });
    expect(answer.status).toBe(400);
  });

  it('a declared Content-Length over the limit is a 413 at once: nothing read, nothing forwarded', async () => {
    const answer = await pageUpload(proxy.port, 'videos', () => form('mp4', 1024), { contentLength: 60 * MiB, stallAfter: 0 });
    expect(answer.status).toBe(413);
    await settled(upstream.requests, 0);
    expect(upstream.requests).toEqual([]);
  });

  it('a body that makes no progress for idleTimeout is a 408, the upstream request aborted', async () => {
    // The page stops for good, so the bound holds however busy the machine is.
    const stalling = await startProxy({ upstream: upstream.url, idleTimeout: 400 }, mode);
    try {
      const started = Date.now();
      const answer = await pageUpload(stalling.port, 'images', () => form('png', 4 * MiB), { stallAfter: 1 * MiB });
      expect(answer.status).toBe(408);
      expect(Date.now() - started).toBeGreaterThanOrEqual(350);
      await settled(upstream.requests);
      expect(upstream.requests[0]?.complete).toBe(false);
    } finally {
      await stalling.close();
    }
  });

  describe('the page\u2019s form is one file part, or nothing goes', () => {
    const field = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="model"\r\n\r\nomni-image\r\n`);
    const png = () => mediaBytes('png', 4096);
    const cases: [string, Buffer][] = [
      ['an extra field before the file', Buffer.concat([field, partHead(), png(), closing])],
      ['a second file after the first', Buffer.concat([partHead('a.png'), png(), Buffer.from(`\r\n`), partHead('b.png'), png(), closing])],
      ['a field named otherwise', Buffer.concat([Buffer.from(partHead().toString().replace('name="file"', 'name="image"')), png(), closing])],
      ['no filename (not a file)', Buffer.concat([Buffer.from(partHead().toString().replace('; filename="photo.png"', '')), png(), closing])],
      ['a filename* parameter', Buffer.concat([Buffer.from(partHead().toString().replace('filename=', "filename*=UTF-8''x.png; filename=")), png(), closing])],
      ['a raw CR LF in the filename', Buffer.concat([partHead('a\r\nX-Injected: 1\r\n.png'), png(), closing])],
      ['a Content-Transfer-Encoding', Buffer.concat([partHead('photo.png', 'Content-Transfer-Encoding: base64\r\n'), png(), closing])],
      ['a preamble', Buffer.concat([Buffer.from('preamble\r\n'), partHead(), png(), closing])],
      ['bytes after the closing boundary', Buffer.concat([partHead(), png(), closing, Buffer.from('trailing')])],
      ['no closing boundary (cut short)', Buffer.concat([partHead(), png()])],
      ['a malformed boundary line', Buffer.concat([partHead(), png(), Buffer.from(`\r\n--${BOUNDARY}xx`)])],
    ];

    it.each(cases)('%s: 400, and the service completes no upload', async (_name, body) => {
      const answer = await pageUpload(proxy.port, 'images', () => [body]);
      expect(answer.status, answer.body).toBe(400);
      await settled(upstream.requests, 0);
      for (const request of upstream.requests) {
        expect(request.complete && request.body.includes(Buffer.from('--\r\n'))).toBe(false);
      }
    });

    it('a filename with a path, quotes or encoded CR LF reaches the service as a plain name, in a clean part', async () => {
      for (const [sent, expected] of [
        ['../../etc/passwd.png', 'passwd.png'],
        ['C:\\Users\\me\\photo.png', 'photo.png'],
        ['a%0D%0AX-Injected: 1.png', 'aX-Injected: 1.png'],
        ['say %22cheese%22.png', 'say cheese.png'],
        ['..', 'upload.png'],
      ]) {
        upstream.requests.length = 0;
        const answer = await pageUpload(proxy.port, 'images', () => [partHead(sent), png(), closing]);
        expect(answer.status, answer.body).toBe(200);
        const { file, partHeaders } = await recordedFile(upstream.requests[0] as Recorded);
        expect(file.name).toBe(expected);
        expect(partHeaders.split('\r\n').filter((line) => /^x-injected/i.test(line))).toEqual([]);
        expect(partHeaders).toMatch(/^--[^\r\n]+\r\nContent-Disposition: form-data; name="file"; filename="[^"\r\n]*"\r\nContent-Type: image\/png$/);
      }
    });
  });
});

describe('uploads through the proxy to the mock service', () => {
  let mock: MockServer;
  let proxy: RunningProxy;
  beforeAll(async () => {
    mock = await startMockServer({ apiKeys: [KEY] });
    proxy = await startProxy({ upstream: mock.url });
  });
  afterAll(async () => {
    await proxy.close();
    await mock.close();
  });

  it('the service keeps the very bytes the page sent, typed as sniffed', async () => {
    const bytes = new Uint8Array(readFileSync(new URL('../fixtures/tiny.webp', import.meta.url)));
    const answer = await pageUpload(proxy.port, 'images', () => [partHead('photo.webp'), bytes, closing]);
    expect(answer.status, answer.body).toBe(200);
    const [stored] = mock.mock.uploads() as { content_type: string; bytes: number; url: string }[];
    expect(stored).toMatchObject({ content_type: 'image/webp', bytes: bytes.byteLength, filename: 'photo.webp' });
    expect(sha256(new Uint8Array(await (await fetch(stored!.url)).arrayBuffer()))).toBe(sha256(bytes));
  });
});
