// A task's outputs downloaded into a directory (staged: written beside their targets, renamed
// together once every one arrived) under telemetry: one download span for the task, a GET per
// output below it; a failure of one output ends the span with its error and the task id, and
// no file is left.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OmniMedia, type TaskResult } from 'omnimedia';
import { childrenOf, recorder, span, useContextManager, type Recorder } from '../helpers/otel.ts';
import { fixture } from '../helpers/fixtures.ts';

const png = fixture('tiny.png');
const TASK = { task_id: 'task_dl', status: 'completed', data: [{ url: 'https://files.test/0.png' }, { url: 'https://files.test/1.png' }] } as TaskResult;

let disableContext: () => void;
beforeAll(() => (disableContext = useContextManager('async')));
afterAll(() => disableContext());

function client(rec: Recorder, failing?: string) {
  return new OmniMedia({
    apiKey: 'sk-0123456789abcdef',
    baseURL: 'https://api.test',
    logLevel: 'off',
    maxRetries: 0,
    telemetry: rec.telemetry,
    fetch: async (input) =>
      String(input) === failing ? new Response('down', { status: 500 }) : new Response(png.bytes, { headers: { 'content-type': 'image/png' } }),
  });
}

describe('files.download(task, { to: directory }) with telemetry', () => {
  it('one span for the task, a GET per output; both files in place', async () => {
    const rec = recorder();
    const dir = mkdtempSync(join(tmpdir(), 'omnimedia-otel-dl-'));
    await client(rec).files.download(TASK, { to: dir });
    const call = span(rec.spans(), 'omnimedia.files.download');
    expect(call.attributes).toEqual({ 'omnimedia.operation': 'download' });
    const gets = childrenOf(rec.spans(), call);
    expect(gets.map((s) => [s.name, s.attributes['http.response.status_code']])).toEqual([['GET', 200], ['GET', 200]]);
    expect(readdirSync(dir).sort()).toEqual(['task_dl-0.png', 'task_dl-1.png']);
  });

  it('one output failing: the span ends ERROR with the error class and the task id, its GET with the status; no file left', async () => {
    const rec = recorder();
    const dir = mkdtempSync(join(tmpdir(), 'omnimedia-otel-dl-'));
    const error = await client(rec, 'https://files.test/1.png').files.download(TASK, { to: dir }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'InternalServerError', taskId: 'task_dl' });
    const call = span(rec.spans(), 'omnimedia.files.download');
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    expect(call.attributes).toEqual({ 'omnimedia.operation': 'download', 'omnimedia.task.id': 'task_dl', 'error.type': 'InternalServerError' });
    const failed = childrenOf(rec.spans(), call).find((s) => s.attributes['url.full'] === 'https://files.test/1.png');
    expect(failed?.attributes['error.type']).toBe('500');
    expect(readdirSync(dir)).toEqual([]);
  });
});

// Issue 30, defect 6: a data: URL was recorded whole in url.full (file bytes, megabytes of them).
describe('what a download span records of its URL', () => {
  it('a data: URL by its scheme alone; an http(s) URL without credentials, query or fragment', async () => {
    const rec = recorder();
    const bytes = `data:image/png;base64,${Buffer.from(png.bytes).toString('base64')}`;
    const signed = 'https://user:pass@files.test/out/0.png?X-Amz-Signature=abc#frag';
    const dataClient = new OmniMedia({ apiKey: 'sk-0123456789abcdef', baseURL: 'https://api.test', logLevel: 'off', maxRetries: 0, telemetry: rec.telemetry, fetch: async () => new Response(png.bytes, { headers: { 'content-type': 'image/png' } }) });
    await dataClient.files.download(bytes);
    await dataClient.files.download({ task_id: 'task_data', status: 'completed', data: [{ url: bytes }] });
    await dataClient.files.download(signed.replace('user:pass@', '')).catch(() => undefined);
    const gets = rec.spans().filter((s) => s.name === 'GET');
    expect(gets.map((s) => s.attributes['url.full'])).toEqual(['data:', 'data:', 'https://files.test/out/0.png']);
    expect(gets[0]!.attributes['server.address']).toBeUndefined();
    expect(gets[2]!.attributes).toMatchObject({ 'server.address': 'files.test', 'server.port': 443 });
    const recorded = JSON.stringify(rec.spans().map((s) => [s.name, s.attributes, s.events]));
    expect(recorded).not.toContain('base64');
    expect(recorded).not.toContain('X-Amz');
  });
});
