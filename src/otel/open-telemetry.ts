import { context, metrics, trace, type MeterProvider, type TracerProvider } from '@opentelemetry/api';
import { resolveOpenTelemetryOptions } from './options.ts';
import type { Telemetry, TelemetryCallRequest, TelemetryRequest, TelemetrySpan } from '../telemetry/ports.ts';
import { routeOf } from './attributes.ts';
import { createInstruments, type Instruments } from './metrics.ts';
import { RequestSpan } from './request-span.ts';
import { CallSpan, type SpanOwner } from './spans.ts';
import { VERSION } from '../internal/version.ts';

/**
 * Options of `openTelemetry()`. Every one is optional.
 *
 * @example
 * ```ts
 * const telemetry = openTelemetry({ tracerProvider, meterProvider, httpSpans: false, propagate: true });
 * ```
 */
export interface OpenTelemetryOptions {
  /** Where spans go. Default: the globally registered provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /** Where metrics go. Default: the globally registered provider, looked up at the first measurement. */
  meterProvider?: MeterProvider;
  /**
   * A CLIENT span (and a `http.client.request.duration` measurement) per request attempt.
   * Default `true`; `false` when the app already runs the undici/fetch instrumentation, which
   * then records each request once, as a child of the SDK's call span.
   */
  httpSpans?: boolean;
  /**
   * Send the `traceparent` (and whatever the registered propagator writes) to the service.
   * Default `false`: trace ids are not a third party's business unless you say so.
   */
  propagate?: boolean;
}

/** The SDK's telemetry on OpenTelemetry: the `Telemetry` port `new OmniMedia({ telemetry })` takes. */
class OpenTelemetry implements Telemetry {
  readonly #owner: SpanOwner;

  constructor(options: OpenTelemetryOptions | undefined) {
    const settings = resolveOpenTelemetryOptions(options);
    let instruments: Instruments | undefined;
    this.#owner = {
      tracer: (settings.tracerProvider ?? trace.getTracerProvider()).getTracer('omnimedia', VERSION),
      instruments: () => (instruments ??= createInstruments((settings.meterProvider ?? metrics.getMeterProvider()).getMeter('omnimedia', VERSION))),
      httpSpans: settings.httpSpans,
      propagate: settings.propagate,
      calledBack: new WeakSet(),
    };
  }

  call(name: string, parent?: TelemetrySpan, request?: TelemetryCallRequest): TelemetrySpan {
    return new CallSpan(this.#owner, name, parent instanceof CallSpan ? parent.context : context.active(), request);
  }

  request(parent: TelemetrySpan | undefined, method: string, url: string, path: string | undefined, attempt: number): TelemetryRequest {
    return new RequestSpan(this.#owner, parent instanceof CallSpan ? parent : undefined, method, url, path && routeOf(path), attempt);
  }
}

/**
 * Spans and metrics of everything the client does, through `@opentelemetry/api` (an optional
 * peer dependency, >= 1.9), recorded by whatever SDK and exporter the app runs. Spans are
 * children of the caller's active span; see the guide [Observability](https://github.com/omnimedia/omnimedia/blob/main/docs/observability.md) for the names,
 * attributes and metrics, and for what is never recorded.
 *
 * @example
 * ```ts
 * import { OmniMedia } from 'omnimedia';
 * import { openTelemetry } from 'omnimedia/otel';
 *
 * const client = new OmniMedia({ telemetry: openTelemetry() }); // the globally registered providers
 * ```
 */
export function openTelemetry(options?: OpenTelemetryOptions): Telemetry {
  return new OpenTelemetry(options);
}
