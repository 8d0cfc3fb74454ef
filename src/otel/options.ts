import { shown } from '../internal/error-text.ts';
import { objectOf, OptionProblems } from '../option-checks.ts';

/** `openTelemetry`'s options with every default filled in (the providers stay the caller's, or `undefined` for the global ones). */
export interface OpenTelemetrySettings<T, M> {
  tracerProvider: T | undefined;
  meterProvider: M | undefined;
  httpSpans: boolean;
  propagate: boolean;
}

/** Check the options of `openTelemetry` (`omnimedia/otel`): providers by their shape, switches as booleans. */
export function resolveOpenTelemetryOptions<T, M>(
  options: { tracerProvider?: T; meterProvider?: M; httpSpans?: boolean; propagate?: boolean } | undefined,
): OpenTelemetrySettings<T, M> {
  const o = objectOf(options, 'openTelemetry');
  const problems = new OptionProblems('openTelemetry options');
  problems.port('tracerProvider', o.tracerProvider, 'getTracer', 'a TracerProvider (with getTracer)');
  problems.port('meterProvider', o.meterProvider, 'getMeter', 'a MeterProvider (with getMeter)');
  for (const name of ['httpSpans', 'propagate'] as const)
    if (o[name] !== undefined && typeof o[name] !== 'boolean') problems.add(name, `must be true or false (got ${shown(o[name])})`);
  problems.done();
  return {
    tracerProvider: o.tracerProvider as T | undefined,
    meterProvider: o.meterProvider as M | undefined,
    httpSpans: (o.httpSpans as boolean | undefined) ?? true,
    propagate: (o.propagate as boolean | undefined) ?? false,
  };
}
