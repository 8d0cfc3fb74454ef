// The options of openTelemetry() and the client's telemetry option: a bad one is a
// ValidationError naming it, thrown before anything is sent; the tracer and meter carry the
// package's name and version.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OmniMedia, ValidationError } from 'omnimedia';
import type { Telemetry } from 'omnimedia/otel';
import { openTelemetry, type OpenTelemetryOptions } from 'omnimedia/otel';
import { TasksClient } from 'omnimedia/tasks';
import { VERSION } from '../../src/internal/version.ts';

const issuesOf = (fn: () => unknown): { path: string; message: string }[] => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return [...(error as ValidationError).issues];
  }
  throw new Error('no ValidationError');
};

describe('openTelemetry options', () => {
  it('each bad option is named with its rule', () => {
    const issues = issuesOf(() => openTelemetry({ tracerProvider: {}, meterProvider: 'm', httpSpans: 'no', propagate: 1 } as unknown as OpenTelemetryOptions));
    expect(issues).toEqual([
      { path: 'tracerProvider', message: 'must be a TracerProvider (with getTracer)' },
      { path: 'meterProvider', message: 'must be a MeterProvider (with getMeter)' },
      { path: 'httpSpans', message: 'must be true or false (got no)' },
      { path: 'propagate', message: 'must be true or false (got 1)' },
    ]);
    expect(() => openTelemetry('x' as unknown as OpenTelemetryOptions)).toThrow(/openTelemetry: options must be an object/);
  });

  it('no options: the global providers, HTTP spans on, no propagation', () => {
    const telemetry = openTelemetry();
    expect(typeof telemetry.call).toBe('function');
    expect(typeof telemetry.request).toBe('function');
  });
});

describe('the client’s telemetry option', () => {
  it('something that is not a Telemetry is refused at construction, by name', () => {
    for (const wrong of [{}, 'otel', 1, null, { call: 'x' }])
      expect(issuesOf(() => new OmniMedia({ baseURL: 'https://x.test', telemetry: wrong as unknown as Telemetry }))).toEqual([
        { path: 'telemetry', message: 'must be a Telemetry, such as openTelemetry() from omnimedia/otel' },
      ]);
    expect(issuesOf(() => new TasksClient({ baseURL: 'https://x.test', telemetry: {} as Telemetry }))[0]?.path).toBe('telemetry');
  });

  it('a Telemetry of your own works: the port is public', async () => {
    const calls: string[] = [];
    const telemetry: Telemetry = {
      call: (name) => ({ saw() {}, end: (error) => void calls.push(`end ${name}${error ? ' with error' : ''}`), run: (work) => work().finally(() => calls.push(`ran ${name}`)) }),
      request: (_parent, method, _url, path, attempt) => ({
        send: (fetch, url, init) => (calls.push(`${method} ${path} #${attempt}`), fetch(url, init)),
        end() {},
      }),
    };
    const client = new OmniMedia({ baseURL: 'https://x.test', telemetry, fetch: async () => Response.json({ task_id: 't1', status: 'pending' }) });
    await client.tasks.retrieve('t1');
    expect(calls).toEqual(['GET v1/tasks/t1 #1', 'ran tasks.retrieve']);
  });
});

it('the tracer’s and meter’s version is the package’s', () => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  expect(VERSION).toBe(version);
});
