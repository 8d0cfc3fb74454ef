import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { DurationsStore } from '../../src/coordination/ports.ts';
import { TaskDurations } from '../../src/waiting/durations.ts';
import type { TaskResult } from '../../src/schemas/task.ts';

const finished = (seconds: number) => ({ task_id: 't', status: 'completed', elapsed_s: seconds }) as TaskResult;

describe('TaskDurations', () => {
  it('learns a window from what the store remembers, in memory by default', async () => {
    const durations = new TaskDurations();
    expect(await durations.expected('image')).toBeUndefined();
    durations.record('image', finished(10));
    expect(await durations.expected('image')).toEqual({ from: 8_000, to: 12_000, samples: 1 });
    expect(await durations.expected(undefined)).toBeUndefined();
  });

  it.each([
    ['a hand-written thenable', (samples: number[]) => ({ then: (resolve: (value: number[]) => void) => void setImmediate(() => resolve(samples)) })],
    ['a Promise of another realm (vm)', (samples: number[]) => runInNewContext('Promise.resolve(samples)', { samples })],
  ])('reads a store that answers with %s (not `instanceof Promise` here)', async (_label, answer) => {
    const store: DurationsStore = { get: () => answer([10_000]) as Promise<number[]>, add: () => {} };
    expect(await new TaskDurations(store).expected('image')).toEqual({ from: 8_000, to: 12_000, samples: 1 });
  });
});
