import type { TelemetrySpan } from './ports.ts';

/** `work()`, run as the call of `span` when telemetry is on (see `TelemetrySpan.run`). */
export function traced<T>(span: TelemetrySpan | undefined, work: () => Promise<T>): Promise<T> {
  return span ? span.run(work) : work();
}
