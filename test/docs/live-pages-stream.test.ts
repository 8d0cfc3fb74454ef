// docs/live-pages.md's sample of the task events stream shows each event's fields in the order
// the proxy writes them (it showed `id:` before `event:`; the stream sends `event:` first).
import { afterAll, expect, it } from 'vitest';
import { createProxy } from 'omnimedia/proxy';
import { startMockServer } from 'omnimedia/testing';
import { codeBlocks } from '../helpers/docs.ts';

const mock = await startMockServer({ durations: { pending: 20, image: 50 } });
afterAll(() => mock.close());

/** Each event's field names, in order (comments and blank lines left out). */
const fieldOrder = (text: string) =>
  text
    .split(/\n\n/)
    .map((event) => event.split('\n').filter((line) => line && !line.startsWith(':')).map((line) => line.slice(0, line.indexOf(':'))))
    .filter((fields) => fields.length > 0);

it("the guide's SSE sample has the stream's field order", async () => {
  const proxy = createProxy({ apiKey: 'sk-mock', baseURL: mock.url, basePath: '/api/omnimedia', authorize: () => ({ id: 'ana' }), logger: { error() {}, warn() {}, info() {}, debug() {} } });
  const submitted = await proxy.handler(
    new Request('http://app.test/api/omnimedia/v1/images/generations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'omni-image', prompt: 'a fox' }) }),
  );
  expect(submitted.status).toBe(200);
  const { task_id } = (await submitted.json()) as { task_id: string };
  const stream = await proxy.handler(new Request(`http://app.test/api/omnimedia/v1/tasks/${task_id}/events`));
  expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const sent = await stream.text(); // the stream ends after the task's final event
  const sample = codeBlocks('docs/live-pages.md').find((b) => b.info === 'text' && b.code.includes('task_123') && b.code.includes(': ping'));
  const expected = fieldOrder(sent)[0];
  expect(expected).toEqual(['event', 'id', 'data']);
  for (const fields of fieldOrder(sample!.code)) expect(fields).toEqual(expected);
});
