/**
 * `omnimedia/otel`: the client's spans and metrics on OpenTelemetry. `@opentelemetry/api`
 * (>= 1.9) is an optional peer dependency, loaded only by this entry: `omnimedia` itself never
 * imports it. See the guide [Observability](https://github.com/omnimedia/omnimedia/blob/main/docs/observability.md).
 *
 * @module omnimedia/otel
 */
export { openTelemetry, type OpenTelemetryOptions } from './open-telemetry.ts';
export type { Telemetry, TelemetryCallRequest, TelemetryRequest, TelemetrySpan } from '../telemetry/ports.ts';
