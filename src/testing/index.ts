/**
 * `omnimedia/testing`: a faithful simulation of the service for tests, demos and offline
 * development. The MSW adapter lives in `omnimedia/testing/msw` so that this entry works
 * without msw installed.
 *
 * @module omnimedia/testing
 */
export { DEFAULT_CALLBACK_RETRY_DELAYS, type CallbackDelivery } from './callbacks.ts';
export type { EndpointGroup } from './scenario.ts';
export { MockService, createMockService } from './service.ts';
export { DEFAULT_DURATIONS, type MockDuration, type MockDurations, type MockRequestRecord, type MockServiceOptions } from './service-options.ts';
export { startMockServer, type MockServer, type MockServerOptions } from './server.ts';
export { sampleFiles } from './samples.ts';
export { UPLOAD_TTL_SECONDS } from './uploads.ts';
