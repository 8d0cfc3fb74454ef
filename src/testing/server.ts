// The mock on a real local HTTP server, for anything that cannot take an MSW handler: a
// browser page, another process, a CLI, curl. @hono/node-server turns Node's http requests
// into fetch Requests and back; it is bundled into this entry, so users install nothing more.
import type { MockServiceOptions } from './service-options.ts';
import { createMockService, type MockService } from './service.ts';

/**
 * Options of {@link startMockServer}.
 *
 * @example
 * ```ts
 * const server = await startMockServer({ port: 4010, durations: { video: 2_000 } });
 * ```
 */
export interface MockServerOptions extends Omit<MockServiceOptions, 'baseURL'> {
  /** Default 0: any free port (read it from `url`). */
  port?: number;
  /** Default `127.0.0.1`: loopback only. */
  host?: string;
  /** Serve this mock instead of a new one. */
  mock?: MockService;
}

/**
 * A running mock server.
 *
 * @example
 * ```ts
 * const server = await startMockServer();
 * server.mock.failNextTask('provider_error');
 * // ... point a client at server.url ...
 * await server.close();
 * ```
 */
export interface MockServer {
  /** The base URL to give the client, e.g. `http://127.0.0.1:4010`. */
  url: string;
  /** The port it listens on (the free one it got, when `port` was 0). */
  port: number;
  /** The service behind the server: scenario controls and inspection. */
  mock: MockService;
  /** Stop listening, drop open connections and pending callbacks. */
  close(): Promise<void>;
}

/**
 * Start the mock service on a local HTTP server (Node). CORS is on, so a browser page can
 * call it.
 *
 * @example
 * ```ts
 * import { OmniMedia } from 'omnimedia';
 * import { startMockServer } from 'omnimedia/testing';
 *
 * const server = await startMockServer({ port: 4010 });
 * const client = new OmniMedia({ apiKey: 'test', baseURL: server.url });
 * // ...
 * await server.close();
 * ```
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  // Loaded here, not at the top, so importing omnimedia/testing in a browser never loads node:http.
  // The magic comments keep browser bundlers from following it into node:http.
  const { serve } = await import(/* webpackIgnore: true */ /* @vite-ignore */ '@hono/node-server');
  const host = options.host ?? '127.0.0.1';
  let mock = options.mock;
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve(
      // overrideGlobalObjects: false: the server lives in the user's process (their tests), whose
      // global Request and Response must stay the platform's (Hono's lighter ones broke MSW there).
      { fetch: (request: Request) => (mock as MockService).handle(request), port: options.port ?? 0, hostname: host, overrideGlobalObjects: false },
      () => resolve(started),
    );
    started.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const { mock: _ignored, port: _port, host: _host, ...serviceOptions } = options;
  mock ??= createMockService({ ...serviceOptions, baseURL: url });
  const service = mock;
  return {
    url,
    port,
    mock: service,
    close: () =>
      new Promise<void>((resolve, reject) => {
        service.close();
        server.close((error) => (error ? reject(error) : resolve()));
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
