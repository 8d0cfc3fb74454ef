// What telemetry never records, tested as an attacker reading the traces would: a full run
// (uploads, an edit, a video from messages, waits, callbacks accepted and rejected, a download
// of a signed URL, errors whose bodies echo the request) with a marker in every secret, then
// every span name, attribute, event, status message and metric attribute searched for each.
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { http, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { createMockService, type MswMockService } from 'omnimedia/testing/msw';
import { BASE_URL, useMsw } from '../helpers/msw.ts';
import { recorder, useContextManager, type Recorder } from '../helpers/otel.ts';
import { photo } from '../testing/mock-helpers.ts';

const server = useMsw();

const SECRETS = {
  key: 'sk-KEY-MARKER-7f3a9c',
  header: 'HEADER-VALUE-MARKER-51d2',
  prompt: 'PROMPT-MARKER a lighthouse at dawn',
  message: 'MESSAGE-MARKER the boat sails',
  callbackParam: 'CALLBACK-URL-MARKER-tenant-42',
  secret: 'CALLBACK-SECRET-MARKER-0123456789',
  wrongToken: 'WRONG-TOKEN-MARKER',
  fileBytes: 'FILE-BYTES-MARKER-e91c',
  query: 'QUERY-MARKER-signature',
};
const CALLBACK_URL = `https://app.test/hooks/omnimedia?tenant=${SECRETS.callbackParam}`;

/** Every string telemetry recorded: span names, attributes (keys and values), events, status messages, metric names and attributes. */
async function recorded(rec: Recorder): Promise<string[]> {
  const out: string[] = [];
  const attributes = (a: Record<string, unknown> | undefined) => {
    for (const [key, value] of Object.entries(a ?? {})) out.push(key, String(value));
  };
  for (const s of rec.spans() as ReadableSpan[]) {
    out.push(s.name, s.status.message ?? '');
    attributes(s.attributes);
    for (const event of s.events) {
      out.push(event.name);
      attributes(event.attributes);
    }
    for (const link of s.links) attributes(link.attributes);
  }
  for (const metric of await rec.metrics()) {
    out.push(metric.descriptor.name, metric.descriptor.description, metric.descriptor.unit);
    for (const point of metric.dataPoints) attributes(point.attributes);
  }
  return out;
}

/** The secrets (or a recognisable part of one) found in what was recorded. */
function leaks(strings: string[], secrets: Record<string, string>): string[] {
  const haystack = strings.join('\n');
  return Object.entries(secrets).filter(([, value]) => haystack.includes(value) || haystack.includes(value.slice(0, 14))).map(([name]) => name);
}

describe('never recorded', () => {
  let mock: MswMockService;
  let disableContext: () => void;
  beforeAll(() => (disableContext = useContextManager('async')));
  afterAll(() => disableContext());
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    mock = createMockService({ baseURL: BASE_URL, apiKeys: [SECRETS.key], durations: { pending: 500, image: 2000, imageEdit: 2000, video: 3000 } });
    server.use(...mock.handlers);
  });
  afterEach(() => {
    mock.close();
    vi.useRealTimers();
  });

  it('the scan finds a secret where one is recorded (it can fail)', async () => {
    const rec = recorder();
    const tracer = rec.tracer;
    tracer.startSpan('x', { attributes: { leaked: `Bearer ${SECRETS.key}` } }).end();
    tracer.startSpan('y').addEvent('e', { prompt: SECRETS.prompt }).end();
    const z = tracer.startSpan('z');
    z.setStatus({ code: SpanStatusCode.ERROR, message: `token=${SECRETS.wrongToken}` });
    z.end();
    rec.meterProvider.getMeter('m').createCounter('c').add(1, { url: `https://x.test/?q=${SECRETS.query}` });
    expect(leaks(await recorded(rec), SECRETS).sort()).toEqual(['key', 'prompt', 'query', 'wrongToken']);
  });

  it('a full run leaves none of the key, header values, prompt or message text, callback URL or token, callback secret, file bytes or query string', async () => {
    const rec = recorder({ propagate: true });
    const client = new OmniMedia({
      apiKey: SECRETS.key,
      baseURL: BASE_URL,
      logLevel: 'off',
      telemetry: rec.telemetry,
      callbackSecret: SECRETS.secret,
      defaultHeaders: { 'x-tenant-token': SECRETS.header },
    });
    const handle = client.callbacks.handler(() => {});
    server.use(
      http.post('https://app.test/hooks/omnimedia', ({ request }) => handle(request)),
      // A result host that signs its URLs in the query string.
      http.get('https://cdn.test/signed/out.png', () => new HttpResponse(photo(), { headers: { 'content-type': 'image/png' } })),
    );
    const run = async <T,>(promise: Promise<T>): Promise<T> => {
      let done = false;
      const settled = promise.finally(() => (done = true));
      settled.catch(() => {});
      for (let i = 0; i < 400 && !done; i++) await vi.advanceTimersByTimeAsync(250);
      return settled;
    };

    // A file whose bytes carry a marker (after the PNG's end: the service and the sniffing ignore it).
    const bytes = new Uint8Array([...photo(), ...new TextEncoder().encode(SECRETS.fileBytes)]);
    const edited = await run(client.images.edit({ model: 'omni-image', prompt: SECRETS.prompt, image: bytes, callback_url: CALLBACK_URL }).wait());
    const upload = await run(client.uploads.image(bytes, { filename: 'photo.png' }));
    await run(
      client.videos
        .generate({
          model: 'omni_flash_components',
          messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: upload.url } }, { type: 'text', text: SECRETS.message }] }],
          callback_url: CALLBACK_URL,
        })
        .wait(),
    );
    await run(mock.callbacksSettled());
    // A forged delivery with a wrong token, and one whose URL carries no token at all.
    await handle(new Request(`${CALLBACK_URL}&omnimedia_token=${SECRETS.wrongToken}`, { method: 'POST', body: JSON.stringify(edited) }));
    await handle(new Request(CALLBACK_URL, { method: 'POST', body: JSON.stringify({ ...edited, prompt: SECRETS.prompt }) }));
    await run(client.files.download(`https://cdn.test/signed/out.png?X-Amz-Signature=${SECRETS.query}&key=${SECRETS.key}`));
    await run(client.tasks.retrieve(edited.task_id, {}));
    // Errors whose bodies echo the request: what the service says never reaches telemetry.
    server.use(
      http.post(`${BASE_URL}/v1/images/generations`, async ({ request }) =>
        HttpResponse.json({ error: { message: `bad request ${await request.text()} ${request.headers.get('authorization')}` } }, { status: 400 }),
      ),
    );
    await run(client.images.generate({ model: 'omni-image', prompt: SECRETS.prompt })).catch(() => {});
    // A refusal that quotes the caller's input in its message.
    await run(client.images.edit({ model: 'omni-image', prompt: SECRETS.prompt, image: `${SECRETS.message} not a url` })).catch(() => {});

    // The run really carried the secrets: both callbacks came to their tokened URLs (a token per submission) and were taken.
    const delivered = mock.callbackDeliveries.filter((d) => d.status === 200);
    const [token, token2] = delivered.map((d) => new URL(d.url).searchParams.get('omnimedia_token') ?? '');
    expect(delivered).toHaveLength(2);
    for (const each of [token, token2]) expect(each).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
    expect(token).not.toBe(token2);
    expect(delivered.every((d) => d.url.includes(SECRETS.callbackParam))).toBe(true);

    const strings = await recorded(rec);
    const names = rec.spans().map((s) => s.name);
    for (const name of ['omnimedia.images.edit', 'omnimedia.uploads.image', 'omnimedia.videos.generate', 'omnimedia.tasks.wait', 'omnimedia.callbacks.handle', 'omnimedia.files.download', 'omnimedia.tasks.retrieve', 'omnimedia.images.generate'])
      expect(names).toContain(name);
    expect(strings.length).toBeGreaterThan(300);
    expect(leaks(strings, { ...SECRETS, token: token as string, token2: token2 as string, bearer: 'Bearer ', callbackUrl: 'app.test/hooks' })).toEqual([]);
  });
});
