// A fleet's waits (real Redis, real time, the mock service on loopback): the queries its
// scheduler fires once Redis grants them hang under their wait, under a browser-like context
// manager that does not follow async code; and a wait that another instance polled for says so.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OmniMedia } from 'omnimedia';
import { redisCoordination } from 'omnimedia/redis';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { childrenOf, recorder, span, tree, useContextManager } from '../helpers/otel.ts';
import { REDIS_AVAILABLE, RedisServer } from '../helpers/redis-server.ts';
import { everyStep } from '../helpers/teardown.ts';

const API_KEY = 'sk-otel-fleet';

describe.runIf(REDIS_AVAILABLE)('on a fleet (real Redis, real time)', () => {
  const redisServer = new RedisServer();
  let mockServer: MockServer;
  let disableContext: () => void;
  beforeAll(async () => {
    disableContext = useContextManager('stack');
    await redisServer.start();
    mockServer = await startMockServer({ durations: { pending: 100, image: 600 } });
  });
  afterAll(() =>
    everyStep(
      () => disableContext(),
      () => mockServer?.close(),
      () => redisServer.stop(),
    ),
  );

  it('queries granted by the fleet’s budget (an answer from Redis) hang under their wait; a wait another instance polled for says so', async () => {
    const rec = recorder();
    const instances = await Promise.all(
      ['a', 'b'].map(async () => {
        const redis = await createClient({ url: redisServer.url }).connect();
        const coordination = redisCoordination(redis, { prefix: 'otel:', leaseMs: 2_000 });
        const client = new OmniMedia({ apiKey: API_KEY, baseURL: mockServer.url, logLevel: 'off', coordination, telemetry: rec.telemetry });
        return { redis, coordination, client };
      }),
    );
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
    try {
      const first = await a.client.images.generate({ model: 'omni-image', prompt: 'a' });
      const second = await a.client.images.generate({ model: 'omni-image', prompt: 'b' });
      rec.reset();
      const waits = [
        rec.tracer.startActiveSpan('app.one', (s) => a.client.tasks.wait(first.task_id).finally(() => s.end())),
        rec.tracer.startActiveSpan('app.two', (s) => a.client.tasks.wait(second.task_id).finally(() => s.end())),
      ];
      // B waits on the first task too; A holds its lease and polls, B hears the news.
      const onB = rec.tracer.startActiveSpan('app.three', (s) => b.client.tasks.wait(first.task_id).finally(() => s.end()));
      await Promise.all([...waits, onB]);
      const spans = rec.spans();
      // Which instance holds the first task's lease (and so queries it) is a race between A and B;
      // the second task is A's alone.
      const queriesOf = (name: string) => {
        const [wait] = childrenOf(spans, span(spans, name));
        expect(wait?.name, tree(spans)).toBe('omnimedia.tasks.wait');
        return childrenOf(spans, wait!);
      };
      for (const [names, id] of [[['app.one', 'app.three'], first.task_id], [['app.two'], second.task_id]] as const) {
        const queries = names.flatMap(queriesOf);
        expect(queries.length, tree(spans)).toBeGreaterThan(0);
        expect(queries.every((q) => q.attributes['url.full'] === `${mockServer.url}/v1/tasks/${id}`)).toBe(true);
      }
      const [third] = childrenOf(spans, span(spans, 'app.three'));
      expect(third?.attributes).toMatchObject({ 'omnimedia.task.status': 'completed' });
      // One instance polls a task: whichever did not see the end by its own query heard it.
      const endings = spans.filter((s) => s.name === 'omnimedia.tasks.wait' && s.attributes['omnimedia.task.id'] === first.task_id).map((s) => s.attributes['omnimedia.wait.ended_by']);
      expect(endings.sort()).toEqual(['poll', 'shared']);
    } finally {
      for (const { coordination, redis } of instances) {
        await coordination.close();
        await redis.quit();
      }
    }
  });
});
