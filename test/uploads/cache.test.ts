import { createHash } from 'node:crypto';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fileFromPath, OmniMedia } from '../../src/index.ts';
import { MemoryUploadCacheStore, type CachedUpload, type UploadCacheStore } from '../../src/coordination/index.ts';
import { fixture } from '../helpers/fixtures.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';

const server = useMsw();
const png = fixture('tiny.png');
const jpg = fixture('tiny.jpg');
const HOUR = 3_600_000;

/** Count uploads; every record is valid 24 h from "now" (the faked clock when faked). */
function uploadsCounter() {
  const counter = { images: 0, videos: 0, edits: 0 };
  server.use(
    http.post(`${BASE_URL}/v1/uploads/images`, async ({ request }) => {
      await request.formData();
      const n = ++counter.images;
      const created = Math.floor(Date.now() / 1000);
      return HttpResponse.json({ url: `https://files.example/${n}.png`, created_at: created, expires_at: created + 86_400 });
    }),
    http.post(`${BASE_URL}/v1/uploads/videos`, async ({ request }) => {
      await request.formData();
      const n = ++counter.videos;
      return HttpResponse.json({ upload_id: `v${n}`, expires_at: Math.floor(Date.now() / 1000) + 86_400 });
    }),
    http.post(`${BASE_URL}/v1/images/edits`, async ({ request }) => {
      counter.edits++;
      const body = (await request.json()) as { image: string };
      return HttpResponse.json({ task_id: `t${counter.edits}`, status: 'pending', model: body.image });
    }),
  );
  return counter;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('upload cache', () => {
  it('is off by default: the same bytes are uploaded each time', async () => {
    const counter = uploadsCounter();
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL });
    await client.uploads.image(png.bytes);
    await client.uploads.image(png.bytes);
    expect(counter.images).toBe(2);
    expect(client.uploadCache).toBeUndefined();
  });

  it('a loop editing the same photo 50 times uploads it once', async () => {
    const counter = uploadsCounter();
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, uploadCache: true });
    for (let i = 0; i < 50; i++) {
      const task = await client.images.edit({ model: 'm', prompt: `variation ${i}`, image: i % 2 ? fileFromPath(png.path) : new Blob([png.bytes]) });
      expect(task.model).toBe('https://files.example/1.png');
    }
    expect(counter).toEqual({ images: 1, videos: 0, edits: 50 });
  });

  it('different bytes miss; the same bytes under another name hit', async () => {
    const counter = uploadsCounter();
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, uploadCache: true });
    const a = await client.uploads.image(png.path);
    const b = await client.uploads.image(jpg.path);
    const c = await client.uploads.image(new File([png.bytes], 'other-name.png'));
    expect([a.url, b.url, c.url]).toEqual(['https://files.example/1.png', 'https://files.example/2.png', 'https://files.example/1.png']);
    expect(counter.images).toBe(2);
  });

  it('uploads of the same bytes at the same time share one request', async () => {
    const counter = uploadsCounter();
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, uploadCache: true });
    const records = await Promise.all([client.uploads.image(png.bytes), client.uploads.image(png.path), client.uploads.image(png.bytes)]);
    expect(new Set(records.map((r) => r.url)).size).toBe(1);
    expect(counter.images).toBe(1);
  });

  it('margin: reused while more than the margin is left, uploaded again after', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const counter = uploadsCounter();
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, uploadCache: { margin: 2 * HOUR } });
    await client.uploads.image(png.bytes);
    vi.setSystemTime(Date.now() + 22 * HOUR - 1000); // 2 h + 1 s left: still comfortably valid
    expect((await client.uploads.image(png.bytes)).url).toBe('https://files.example/1.png');
    vi.setSystemTime(Date.now() + 2000); // 2 h - 1 s left: inside the margin
    expect((await client.uploads.image(png.bytes)).url).toBe('https://files.example/2.png');
    expect(counter.images).toBe(2);
  });

  it('a pluggable store sees a SHA-256 key of the bytes and the record', async () => {
    const counter = uploadsCounter();
    const map = new Map<string, CachedUpload>();
    const calls: string[] = [];
    const store: UploadCacheStore = {
      get: async (key) => (calls.push(`get ${key}`), map.get(key)),
      set: async (key, record, ttl) => {
        calls.push(`set ${key} ${ttl > 21 * HOUR && ttl <= 23 * HOUR}`);
        map.set(key, record);
      },
      delete: async (key) => void map.delete(key),
    };
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, uploadCache: { store } });
    await client.uploads.image(png.path);
    await client.uploads.image(png.bytes);
    const key = `image:sha256:${createHash('sha256').update(png.bytes).digest('hex')}`;
    expect(calls).toEqual([`get ${key}`, `set ${key} true`, `get ${key}`]);
    expect(map.get(key)?.url).toBe('https://files.example/1.png');
    expect(counter.images).toBe(1);
  });

  it('a file over 4 MiB is keyed by the SHA-256 of its 4 MiB chunks’ SHA-256s', async () => {
    uploadsCounter();
    const keys: string[] = [];
    const store = new MemoryUploadCacheStore();
    const client = new OmniMedia({
      apiKey: API_KEY,
      baseURL: BASE_URL,
      uploadCache: { store: { get: (k) => (keys.push(k), store.get(k)), set: (k, r, t) => store.set(k, r, t), delete: (k) => store.delete(k) } },
    });
    const bytes = new Uint8Array(9 * 1024 * 1024 + 3);
    bytes.set(png.bytes);
    bytes[bytes.length - 1] = 7;
    await client.uploads.image(bytes);
    const chunkDigests = [0, 1, 2].map((i) => createHash('sha256').update(bytes.subarray(i * 4 * 1024 * 1024, (i + 1) * 4 * 1024 * 1024)).digest());
    expect(keys).toEqual([`image:sha256x4m:${createHash('sha256').update(Buffer.concat(chunkDigests)).digest('hex')}`]);
  });

  it('the default store is bounded: the least recently used record goes first', async () => {
    const counter = uploadsCounter();
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, uploadCache: { maxEntries: 1 } });
    await client.uploads.image(png.bytes);
    await client.uploads.image(jpg.bytes); // evicts the PNG
    await client.uploads.image(png.bytes);
    expect(counter.images).toBe(3);
    const store = client.uploadCache?.store as MemoryUploadCacheStore;
    expect(store.size).toBe(1);
  });

  it('a one-shot stream is not cached (it cannot be hashed and then sent)', async () => {
    const counter = uploadsCounter();
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, uploadCache: true });
    await client.uploads.image(new Blob([png.bytes]).stream());
    await client.uploads.image(new Blob([png.bytes]).stream());
    expect(counter.images).toBe(2);
  });

  it('video uploads are cached by their own key', async () => {
    const counter = uploadsCounter();
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, uploadCache: true });
    const mp4 = fixture('tiny.mp4');
    expect((await client.uploads.video(mp4.path)).upload_id).toBe('v1');
    expect((await client.uploads.video(mp4.bytes)).upload_id).toBe('v1');
    expect(counter.videos).toBe(1);
  });
});

describe('upload cache: the service’s time units (one reading, schemas/time.ts)', () => {
  it('expires_at in ms: the record is reused until it expires, then uploaded again (was valid for millennia: ms read as seconds)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    let uploads = 0;
    server.use(
      http.post(`${BASE_URL}/v1/uploads/images`, async ({ request }) => {
        await request.formData();
        return HttpResponse.json({ url: `https://files.example/${++uploads}.png`, created_at: Date.now(), expires_at: Date.now() + 24 * HOUR });
      }),
    );
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, uploadCache: true, logLevel: 'off' });
    await client.uploads.image(png.bytes);
    vi.setSystemTime(Date.now() + 12 * HOUR);
    expect((await client.uploads.image(png.bytes)).url).toBe('https://files.example/1.png');
    vi.setSystemTime(Date.now() + 13 * HOUR); // 25 h after the upload: expired
    expect((await client.uploads.image(png.bytes)).url).toBe('https://files.example/2.png');
    expect(uploads).toBe(2);
  });

  it('a record in the store whose expires_at (ms, ISO) has passed is not handed out', async () => {
    const counter = uploadsCounter();
    const hourAgo = Date.now() - HOUR;
    for (const expires_at of [hourAgo, new Date(hourAgo).toISOString()]) {
      const store: UploadCacheStore = {
        get: async () => ({ url: 'https://files.example/stale.png', expires_at }) as unknown as CachedUpload,
        set: async () => undefined,
        delete: async () => undefined,
      };
      const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, uploadCache: { store } });
      expect((await client.uploads.image(png.bytes)).url).not.toBe('https://files.example/stale.png');
    }
    expect(counter.images).toBe(2);
  });
});
