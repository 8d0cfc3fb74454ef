/**
 * `omnimedia/testing/msw`: the mock service as MSW request handlers. A separate entry so that
 * only users of MSW need msw installed (an optional peer dependency).
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { createMockService } from 'omnimedia/testing/msw';
 *
 * const mock = createMockService({ baseURL: 'https://api.example.test' });
 * const server = setupServer(...mock.handlers);
 * server.listen();
 * ```
 *
 * @module omnimedia/testing/msw
 */
import { http, type HttpHandler } from 'msw';
import type { MockServiceOptions } from './service-options.ts';
import { MockService } from './service.ts';

/**
 * MSW handlers that send every request under `mock.baseURL` (API, uploads, results) to the mock.
 *
 * @example
 * ```ts
 * const mock = createMockService();
 * const server = setupServer(...mswHandlers(mock));
 * ```
 */
export function mswHandlers(mock: MockService): HttpHandler[] {
  return [http.all(`${mock.baseURL}/*`, ({ request }) => mock.handle(request))];
}

/**
 * A {@link MockService} with its MSW handlers ready: `setupServer(...mock.handlers)`.
 *
 * @example
 * ```ts
 * const mock: MswMockService = createMockService();
 * server.use(...mock.handlers);
 * ```
 */
export class MswMockService extends MockService {
  /** Spread into `setupServer(...)` or `setupWorker(...)`. */
  readonly handlers: HttpHandler[] = mswHandlers(this);
}

/**
 * Like `createMockService` from `omnimedia/testing`, with `.handlers` for MSW.
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { createMockService } from 'omnimedia/testing/msw';
 *
 * const mock = createMockService();
 * const server = setupServer(...mock.handlers);
 * ```
 */
export function createMockService(options: MockServiceOptions = {}): MswMockService {
  return new MswMockService(options);
}

export * from './index.ts';
