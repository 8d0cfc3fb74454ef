// The AI SDK provider's tests: the real `ai` package, our provider, and the mock service behind
// MSW, on fake time (the mock's tasks take seconds of it; MSW keeps its real timers).
import { afterEach, beforeEach, vi } from 'vitest';
import type { ClientOptions } from 'omnimedia';
import { createOmniMedia, type OmniMediaProvider } from 'omnimedia/ai-sdk';
import { createMockService, type MswMockService } from 'omnimedia/testing/msw';
import { runInFakeTime } from '../helpers/clock.ts';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';

export { API_KEY, BASE_URL };

// The AI SDK prints every warning with process.emitWarning; the tests read them from results.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export interface AiSdkContext {
  server: ReturnType<typeof useMsw>;
  mock: MswMockService;
  omni: OmniMediaProvider;
  /** A provider on another client of the same mock (other options). */
  provider(options?: ClientOptions): OmniMediaProvider;
}

/** MSW, a fresh mock and a provider on it for each test. */
export function useAiSdk(): AiSdkContext {
  const server = useMsw();
  const context = { server } as AiSdkContext;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    context.mock = createMockService({ baseURL: BASE_URL });
    server.use(...context.mock.handlers);
    context.provider = (options = {}) => createOmniMedia({ apiKey: API_KEY, baseURL: BASE_URL, logLevel: 'off', ...options });
    context.omni = context.provider();
  });
  afterEach(() => {
    context.mock.close();
    vi.useRealTimers();
  });
  return context;
}

/** Let a promise settle while fake time runs (500 ms steps, up to `ms`); rethrows its error. */
export function run<T>(promise: PromiseLike<T>, ms = 120_000): Promise<T> {
  return runInFakeTime(promise, { ms, toNextTimer: true });
}

/** The error a promise rejects with, while fake time runs. */
export async function failure(promise: PromiseLike<unknown>, ms?: number): Promise<unknown> {
  return run(promise, ms).then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** The mock's requests of one method and path prefix. */
export function requests(mock: MswMockService, method: string, path: string) {
  return mock.requests.filter((r) => r.method === method && r.path.startsWith(path));
}

/** PNG width and height from its IHDR. */
export function pngSize(bytes: Uint8Array): [number, number] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return [view.getUint32(16), view.getUint32(20)];
}

/** A `fetch` for the client that records the JSON body of every POST to the API. */
export function recordingFetch(): { fetch: (input: Request | string | URL, init?: RequestInit) => Promise<Response>; bodies: { path: string; body: Record<string, unknown> }[] } {
  const bodies: { path: string; body: Record<string, unknown> }[] = [];
  return {
    bodies,
    fetch: (input, init) => {
      if (init?.method === 'POST' && typeof init.body === 'string') bodies.push({ path: new URL(String(input)).pathname, body: JSON.parse(init.body) });
      return fetch(input, init);
    },
  };
}

/** `true` for MP4 bytes (an `ftyp` box first). */
export function isMp4(bytes: Uint8Array): boolean {
  return new TextDecoder().decode(bytes.subarray(4, 8)) === 'ftyp';
}
