import { context, propagation, SpanKind, SpanStatusCode, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { TelemetryRequest } from '../telemetry/ports.ts';
import { errorType, urlAttributes } from './attributes.ts';
import { withSpan, type CallSpan, type SpanOwner } from './spans.ts';

/**
 * One HTTP request attempt: a CLIENT span named by its route template (`GET /v1/tasks/{task_id}`,
 * never the id), with the stable HTTP semantic-convention attributes, and its duration in
 * `http.client.request.duration`. With `httpSpans: false` there is no span and no metric (the
 * app's fetch instrumentation records both), but the request still runs in the call's context.
 */
export class RequestSpan implements TelemetryRequest {
  readonly #owner: SpanOwner;
  readonly #span: Span | undefined;
  readonly #context: Context;
  readonly #method: string;
  readonly #url: ReturnType<typeof urlAttributes>;
  readonly #started = performance.now();
  #status: number | undefined;
  #ended = false;

  constructor(owner: SpanOwner, parent: CallSpan | undefined, method: string, url: string, route: string | undefined, attempt: number) {
    this.#owner = owner;
    this.#method = method;
    if (parent) parent.attempts++;
    const parentContext = parent?.context ?? context.active();
    if (!owner.httpSpans) {
      this.#context = parentContext;
      return;
    }
    this.#url = urlAttributes(url);
    const attributes: Attributes = { 'http.request.method': method };
    if (this.#url) {
      attributes['url.full'] = this.#url.full;
      if (this.#url.address !== undefined) attributes['server.address'] = this.#url.address;
      if (this.#url.port !== undefined) attributes['server.port'] = this.#url.port;
    }
    if (attempt > 1) attributes['http.request.resend_count'] = attempt - 1;
    const name = route === undefined ? method : `${method} /${route}`;
    this.#span = owner.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parentContext);
    this.#context = withSpan(parentContext, this.#span);
  }

  send(fetch: (url: string, init: RequestInit) => Promise<Response>, url: string, init: RequestInit): Promise<Response> {
    if (this.#owner.propagate) {
      const headers = Object.fromEntries(new Headers(init.headers));
      propagation.inject(this.#context, headers);
      init = { ...init, headers };
    }
    return context.with(this.#context, fetch, undefined, url, init).then((response) => {
      this.#status = response.status;
      return response;
    });
  }

  end(error?: unknown): void {
    if (this.#ended || !this.#span) return;
    this.#ended = true;
    const attributes: Attributes = {};
    const status = this.#status;
    if (status !== undefined) attributes['http.response.status_code'] = status;
    // The conventions' error.type: the status code of an error answer, else what failed.
    if (status !== undefined && status >= 400) attributes['error.type'] = String(status);
    else if (error !== undefined) attributes['error.type'] = errorType(error);
    if (attributes['error.type'] !== undefined) this.#span.setStatus({ code: SpanStatusCode.ERROR });
    this.#span.setAttributes(attributes);
    this.#span.end();
    const metric: Attributes = { 'http.request.method': this.#method, ...attributes };
    if (this.#url?.address !== undefined) {
      metric['server.address'] = this.#url.address;
      metric['server.port'] = this.#url.port;
    }
    this.#owner.instruments().requestDuration.record((performance.now() - this.#started) / 1000, metric);
  }
}
