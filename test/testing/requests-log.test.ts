// The mock's request log can be emptied between the steps of a test without forgetting the
// tasks (issue 26: `mock.requests.length = 0` was the way people tried, a type error since the
// log is read-only; `reset()` forgets everything).
import { describe, expect, it } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { createMockService } from 'omnimedia/testing';

describe('mock.clearRequests()', () => {
  it('empties the request log and keeps the tasks; the log goes on from there', async () => {
    const mock = createMockService({ durations: { pending: 1, image: 1 } });
    const client = new OmniMedia({ apiKey: 'sk-test', baseURL: mock.baseURL, fetch: mock.fetch });
    const { task_id } = await client.images.generate({ model: 'omni-image', prompt: 'a fox' });
    expect(mock.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/images/generations']);

    expect(mock.clearRequests()).toBe(mock);
    expect(mock.requests).toEqual([]);
    await client.tasks.retrieve(task_id);
    expect(mock.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v1/tasks/${task_id}`]);
    mock.close();
  });
});
