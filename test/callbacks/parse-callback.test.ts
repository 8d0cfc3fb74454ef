import { describe, expect, it } from 'vitest';
import { CallbackError, ValidationError, parseCallback } from 'omnimedia';

const task = {
  task_id: 'task_1',
  status: 'completed',
  model: 'omni-image',
  operation: 'image_generation',
  media_type: 'image',
  provider: 'p2',
  elapsed_s: 12,
  total_elapsed_s: 40,
  created_at: 1_700_000_000,
  completed_at: 1_700_000_040,
  data: [{ url: 'https://files.test/a.png' }],
  total_cost: 3,
  attempt_count: 2,
  attempts: [
    { attempt_no: 1, provider: 'p1', status: 'failed', fail_reason: 'provider_timeout', elapsed_s: 28 },
    { attempt_no: 2, provider: 'p2', status: 'completed', elapsed_s: 12 },
  ],
};
const json = JSON.stringify(task);
const bytes = new TextEncoder().encode(json);

async function reason(body: unknown, options?: { maxBytes?: number }): Promise<string> {
  const error = await parseCallback(body as never, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CallbackError);
  return (error as CallbackError).reason;
}

/** A Request whose body is an endless stream; `pulled` counts the bytes it handed out. */
function endlessRequest(chunk = 64 * 1024) {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulled += chunk;
      controller.enqueue(new Uint8Array(chunk).fill(0x20));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  const request = new Request('http://127.0.0.1/cb', { method: 'POST', body, duplex: 'half' } as RequestInit);
  return { request, state };
}

describe('parseCallback', () => {
  it('reads the spec sample from every input kind alike', async () => {
    const buffer = Buffer.from(json);
    const inputs = [
      json,
      bytes,
      buffer,
      bytes.buffer.slice(0),
      new Blob([json]),
      JSON.parse(json) as Record<string, unknown>,
      new Request('http://127.0.0.1/cb', { method: 'POST', body: json }),
    ];
    for (const input of inputs) expect(await parseCallback(input)).toEqual(task);
  });

  it('reads a Request of another class or realm (an adapter\'s own) by its shape', async () => {
    class ForeignRequest {
      readonly method = 'POST';
      readonly headers = new Headers({ 'content-type': 'application/json' });
      readonly body = new Blob([json]).stream();
      get bodyUsed() {
        return false;
      }
    }
    const foreign = new ForeignRequest();
    expect(foreign).not.toBeInstanceOf(Request);
    expect(await parseCallback(foreign as unknown as Request)).toEqual(task);
  });

  it('keeps unknown fields and accepts unknown statuses (lenient like every response)', async () => {
    const result = await parseCallback({ task_id: 't', status: 'queued_for_review', extra: { a: [1, 'b', null] } });
    expect(result).toEqual({ task_id: 't', status: 'queued_for_review', extra: { a: [1, 'b', null] } });
  });

  it('caps the size of every input kind (default 1 MiB, and the option)', async () => {
    const big = JSON.stringify({ ...task, pad: 'x'.repeat(1024 * 1024) });
    expect(await reason(big)).toBe('too_large');
    expect(await reason(new TextEncoder().encode(big))).toBe('too_large');
    expect(await reason(new Blob([big]))).toBe('too_large');
    expect(await reason(JSON.parse(big))).toBe('too_large');
    expect(await reason(new Request('http://127.0.0.1/cb', { method: 'POST', body: big }))).toBe('too_large');
    expect(await reason(json, { maxBytes: json.length - 1 })).toBe('too_large');
    expect(await parseCallback(json, { maxBytes: json.length })).toEqual(task);
  });

  it('counts a string in UTF-8 bytes, not characters', async () => {
    const body = JSON.stringify({ task_id: 't', status: 'completed', note: 'é'.repeat(100) });
    const size = new TextEncoder().encode(body).byteLength;
    expect(await reason(body, { maxBytes: size - 1 })).toBe('too_large');
    expect((await parseCallback(body, { maxBytes: size })).task_id).toBe('t');
  });

  it('stops reading an endless Request body at the cap and cancels it', async () => {
    const { request, state } = endlessRequest();
    expect(await reason(request, { maxBytes: 1024 * 1024 })).toBe('too_large');
    expect(state.cancelled).toBe(true);
    // It read past the cap by at most one chunk (plus the stream's small read-ahead).
    expect(state.pulled).toBeLessThanOrEqual(1024 * 1024 + 4 * 64 * 1024);
  });

  it('refuses a Request whose content-length is over the cap without reading it', async () => {
    const { request, state } = endlessRequest();
    const headers = new Headers({ 'content-length': String(5 * 1024 * 1024) });
    const declared = new Request(request, { headers });
    expect(await reason(declared)).toBe('too_large');
    // Only the stream's own read-ahead was pulled, nowhere near the 1 MiB a read would take.
    expect(state.pulled).toBeLessThanOrEqual(4 * 64 * 1024);
  });

  it('says invalid_body for a Request already read, and for inputs of the wrong kind', async () => {
    const used = new Request('http://127.0.0.1/cb', { method: 'POST', body: json });
    await used.text();
    expect(await reason(used)).toBe('invalid_body');
    for (const bad of [undefined, null, 42, true, Symbol('x'), () => 1, new Date(), new Map(), [task]]) {
      expect(['invalid_body', 'invalid_shape']).toContain(await reason(bad));
    }
    expect(await reason({ ...task, when: new Date() })).toBe('invalid_body');
    expect(await reason({ ...task, n: 10n })).toBe('invalid_body');
  });

  it('rejects malformed JSON and malformed UTF-8 as invalid_json', async () => {
    expect(await reason('')).toBe('invalid_json');
    expect(await reason(json.slice(0, -1))).toBe('invalid_json');
    expect(await reason("{'task_id': 'x'}")).toBe('invalid_json');
    const badUtf8 = new Uint8Array([...new TextEncoder().encode('{"task_id":"'), 0xff, 0xfe, ...new TextEncoder().encode('","status":"completed"}')]);
    expect(await reason(badUtf8)).toBe('invalid_json');
  });

  it('rejects well-formed JSON that is not a task as invalid_shape, naming the field', async () => {
    expect(await reason('[]')).toBe('invalid_shape');
    expect(await reason('"completed"')).toBe('invalid_shape');
    expect(await reason('null')).toBe('invalid_shape');
    expect(await reason({ status: 'completed' })).toBe('invalid_shape');
    expect(await reason({ task_id: '', status: 'completed' })).toBe('invalid_shape');
    const error = (await parseCallback({ task_id: 't9', status: 7 }).catch((e) => e)) as CallbackError;
    expect(error.reason).toBe('invalid_shape');
    expect(error.message).toContain('status: must be a string');
    expect(error.taskId).toBe('t9');
  });

  it('reads a known field of another type where it can, else leaves it out: an output without a url is left out', async () => {
    const task = await parseCallback({ task_id: 't9', status: 'completed', data: [{ url: 5 }, { url: 'https://r/1.png' }], total_cost: '12' });
    expect(task).toEqual({ task_id: 't9', status: 'completed', data: [{ url: 'https://r/1.png' }], total_cost: 12 });
  });

  it('bounds nesting depth instead of overflowing the stack', async () => {
    const deep = `{"task_id":"t","status":"completed","x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    expect(await reason(deep)).toBe('invalid_shape');
    let nested: Record<string, unknown> = {};
    const root = { task_id: 't', status: 'completed', x: nested };
    for (let i = 0; i < 10_000; i++) nested = (nested.y = {}) as Record<string, unknown>;
    expect(await reason(root)).toBe('invalid_shape');
    // A cycle is caught by the same bound.
    const cyclic: Record<string, unknown> = { task_id: 't', status: 'completed' };
    cyclic.self = cyclic;
    expect(await reason(cyclic)).toBe('invalid_shape');
  });

  it('never lets __proto__ change a prototype, and returns plain data', async () => {
    const body = '{"task_id":"t","status":"completed","__proto__":{"polluted":1},"data":[{"url":"u","__proto__":{"polluted":2}}],"x":{"__proto__":{"polluted":3},"constructor":{"prototype":{"polluted":4}}}}';
    const result = await parseCallback(body);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(result.data![0])).toBe(Object.prototype);
    expect((result as unknown as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(result, '__proto__')).toBe(false);
    const x = (result as unknown as Record<string, unknown>).x as object;
    expect(Object.hasOwn(x, '__proto__')).toBe(false);
    // Merging the result with Object.assign cannot swap a prototype either.
    const merged = Object.assign({}, x);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    // An already-parsed object with an own __proto__ key (as JSON.parse makes) is cleaned too.
    const parsed = await parseCallback(JSON.parse(body) as Record<string, unknown>);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(false);
  });

  it('turns a hostile object (throwing getter, Proxy) into CallbackError', async () => {
    const getter = { task_id: 't', status: 'completed' };
    Object.defineProperty(getter, 'boom', { enumerable: true, get: () => { throw new Error('boom'); } });
    expect(await reason(getter)).toBe('invalid_body');
    const proxy = new Proxy({}, { ownKeys: () => { throw new TypeError('trap'); } });
    expect(await reason(proxy)).toBe('invalid_body');
  });

  it('returns a copy: changing the input afterwards does not change the task', async () => {
    const input = JSON.parse(json) as typeof task;
    const result = await parseCallback(input);
    input.data[0]!.url = 'changed';
    expect(result.data?.[0]?.url).toBe('https://files.test/a.png');
  });

  it('refuses a bad maxBytes option with a ValidationError naming it (the one error type of options)', async () => {
    for (const maxBytes of [0, Number.NaN]) {
      const error = await parseCallback(json, { maxBytes }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).issues[0]?.path).toBe('maxBytes');
    }
  });
});
