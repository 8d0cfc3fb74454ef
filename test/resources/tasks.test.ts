import { describe, expect, it } from 'vitest';
import { APIError, NotFoundError, OmniMedia, ValidationError } from 'omnimedia';
import { API_KEY, BASE_URL, useMsw } from '../helpers/msw.ts';
import { countAllRequests, json, recordRoute } from '../helpers/wire.ts';

const server = useMsw();

// The spec's sample of a task that completed on its second attempt.
const COMPLETED = {
  task_id: 'task_1',
  status: 'completed',
  model: 'omni_flash',
  operation: 'video_generation',
  media_type: 'video',
  provider: 'provider-b',
  elapsed_s: 40,
  total_elapsed_s: 95,
  created_at: 1_700_000_000,
  completed_at: 1_700_000_095,
  data: [{ url: 'https://files.test/out.mp4' }],
  total_cost: 12,
  attempt_count: 2,
  attempts: [
    { attempt_no: 1, provider: 'provider-a', status: 'failed', fail_reason: 'provider_timeout', elapsed_s: 55 },
    { attempt_no: 2, provider: 'provider-b', status: 'completed', elapsed_s: 40 },
  ],
};

describe('tasks.retrieve', () => {
  it('GETs /v1/tasks/{id} without an Authorization header, even when the client has a key', async () => {
    const seen = recordRoute(server, 'get', '/v1/tasks/:id', json(COMPLETED));
    const client = new OmniMedia({ apiKey: API_KEY, baseURL: BASE_URL });
    const task = await client.tasks.retrieve('task_1');
    const [request] = seen;
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/v1/tasks/task_1');
    expect(request?.headers.has('authorization')).toBe(false);
    expect(request?.headers.has('content-type')).toBe(false);
    expect(request?.text).toBe('');
    expect(task).toEqual(COMPLETED);
  });

  it('URL-encodes the task id into one path segment', async () => {
    const seen = recordRoute(server, 'get', '/v1/tasks/:id', json({ ...COMPLETED, task_id: 'a/b c?d#e' }));
    await new OmniMedia({ baseURL: BASE_URL }).tasks.retrieve('a/b c?d#e');
    expect(seen[0]?.path).toBe('/v1/tasks/a%2Fb%20c%3Fd%23e');
  });

  it('refuses ids that would leave the path segment (".", ".."), and empty ids, before any request', async () => {
    const requests = countAllRequests(server);
    const client = new OmniMedia({ baseURL: BASE_URL });
    for (const id of ['', '.', '..']) {
      const error = await client.tasks.retrieve(id).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
    }
    expect(requests.count).toBe(0);
  });

  it('reads leniently: unknown fields kept, unknown status and fail_reason accepted, nulls fine', async () => {
    const odd = {
      task_id: 'task_2',
      status: 'rendering',
      provider: null,
      data: null,
      attempts: [{ attempt_no: 1, status: 'throttled', fail_reason: 'gpu_on_fire', region: 'eu' }],
      queue_position: 3,
    };
    recordRoute(server, 'get', '/v1/tasks/:id', json(odd));
    // Unknown fields are kept; a known field that is null on the wire reads as absent.
    const { provider: _provider, data: _data, ...withoutNulls } = odd;
    expect(await new OmniMedia({ baseURL: BASE_URL }).tasks.retrieve('task_2')).toStrictEqual(withoutNulls);
  });

  it('a result without task_id is an APIError that keeps the body and names the task', async () => {
    recordRoute(server, 'get', '/v1/tasks/:id', json({ status: 'completed' }));
    const error = await new OmniMedia({ baseURL: BASE_URL }).tasks.retrieve('task_3').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ taskId: 'task_3', body: { status: 'completed' }, message: expect.stringMatching(/task_id/) });
  });

  it('errors from the query carry the task id', async () => {
    recordRoute(server, 'get', '/v1/tasks/:id', json({ error: 'no such task' }, 404));
    const error = await new OmniMedia({ baseURL: BASE_URL }).tasks.retrieve('task_404').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, taskId: 'task_404', body: { error: 'no such task' } });
  });
});
