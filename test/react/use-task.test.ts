// useTask's store (one watch per task id shared by every subscriber, stopped when the last one
// leaves), its states, and server rendering (idle, nothing started). In a real React 19 page in
// Chromium: test/package/browser/react-run.mjs.
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { TaskFailedError, NotFoundError, type TaskResult, type WaitOptions } from 'omnimedia/tasks';
import { OmniMediaProvider, useTask } from 'omnimedia/react';
import { submissionSource, taskSource } from '../../src/react/task-store.ts';

/** A client whose watches the test drives: each started watch, with its signal and a push. */
function fakeClient() {
  const started: { taskId: string; signal: AbortSignal; push: (task: TaskResult) => void; fail: (error: unknown) => void; end: () => void }[] = [];
  const client = {
    async *watch(taskId: string, options?: WaitOptions): AsyncGenerator<TaskResult> {
      const queue: (TaskResult | { error: unknown } | 'end')[] = [];
      let wake: (() => void) | undefined;
      const add = (item: (typeof queue)[number]) => {
        queue.push(item);
        wake?.();
      };
      started.push({ taskId, signal: options!.signal!, push: add, fail: (error) => add({ error }), end: () => add('end') });
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const item = queue.shift()!;
        if (item === 'end') return;
        if ('error' in item) throw item.error;
        yield item;
      }
    },
  };
  return { client, started };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('useTask\u2019s store', () => {
  it('components following one id share one watch; the last one leaving stops it, and a later one starts anew', async () => {
    const { client, started } = fakeClient();
    const a = taskSource(client, 'task_1');
    const b = taskSource(client, 'task_1');
    const changes: string[] = [];
    const offA = a.subscribe(() => changes.push(`a ${a.get().status}`));
    const offB = b.subscribe(() => changes.push(`b ${b.get().status}`));
    expect(started).toHaveLength(1);
    expect(a.get()).toMatchObject({ status: 'loading', done: false });
    started[0]!.push({ task_id: 'task_1', status: 'processing' });
    await tick();
    expect(changes).toEqual(['a processing', 'b processing']);
    const snapshot = a.get();
    expect(a.get()).toBe(snapshot); // stable between changes
    offA();
    await tick();
    expect(started[0]!.signal.aborted).toBe(false);
    offB();
    await tick();
    expect(started[0]!.signal.aborted).toBe(true);
    taskSource(client, 'task_1').subscribe(() => {});
    expect(started).toHaveLength(2);
  });

  it('a quick unsubscribe and subscribe (React StrictMode) keeps the one watch', async () => {
    const { client, started } = fakeClient();
    const source = taskSource(client, 'task_2');
    source.subscribe(() => {})();
    source.subscribe(() => {});
    await tick();
    expect(started).toHaveLength(1);
    expect(started[0]!.signal.aborted).toBe(false);
  });

  it('the end: completed is done; failed is done with the failed task and its TaskFailedError; another error is kept with the last task', async () => {
    const { client, started } = fakeClient();
    const ok = taskSource(client, 't_ok');
    ok.subscribe(() => {});
    started[0]!.push({ task_id: 't_ok', status: 'completed', data: [{ url: 'https://r/x.png' }] });
    await tick();
    expect(ok.get()).toMatchObject({ status: 'completed', done: true, error: undefined });

    const failed = taskSource(client, 't_failed');
    failed.subscribe(() => {});
    const task = { task_id: 't_failed', status: 'failed', fail_reason: 'provider_error' };
    started[1]!.push(task);
    started[1]!.fail(new TaskFailedError(task));
    await tick();
    expect(failed.get()).toMatchObject({ task, status: 'failed', done: true });
    expect(failed.get().error).toBeInstanceOf(TaskFailedError);

    const unknown = taskSource(client, 't_unknown');
    unknown.subscribe(() => {});
    started[2]!.fail(new NotFoundError('no such task', { status: 404 }));
    await tick();
    expect(unknown.get()).toMatchObject({ task: undefined, status: 'loading', done: false });
    expect(unknown.get().error).toBeInstanceOf(NotFoundError);
  });

  it('a TaskPromise: submitting until it answers, then the task\u2019s shared watch; a refused submission is its error', async () => {
    const { client, started } = fakeClient();
    let answer!: (value: { task_id: string }) => void;
    const submission = new Promise<{ task_id: string }>((resolve) => (answer = resolve));
    const source = submissionSource(client, submission);
    expect(submissionSource(client, submission)).toBe(source);
    const seen: string[] = [];
    source.subscribe(() => seen.push(source.get().status));
    expect(source.get().status).toBe('submitting');
    answer({ task_id: 'task_3' });
    await tick();
    expect(started.map((s) => s.taskId)).toEqual(['task_3']);
    started[0]!.push({ task_id: 'task_3', status: 'pending' });
    await tick();
    expect(seen).toEqual(['loading', 'pending']);

    const refused = submissionSource(client, Promise.reject(new NotFoundError('gone', { status: 404 })));
    refused.subscribe(() => {});
    await tick();
    // Out of 'submitting' (it stayed there for good before): no task was made.
    expect(refused.get()).toMatchObject({ status: 'idle', task: undefined, done: false });
    expect(refused.get().error).toBeInstanceOf(NotFoundError);
  });
});

describe('useTask on the server', () => {
  it('renders the idle state and starts nothing, whatever it is given', () => {
    const { client, started } = fakeClient();
    function Status({ task }: { task: string | Promise<{ task_id: string }> | undefined }) {
      const state = useTask(task);
      return createElement('p', null, `${state.status} ${state.done}`);
    }
    const html = renderToString(
      createElement(OmniMediaProvider, { client }, [
        createElement(Status, { key: 1, task: 'task_1' }),
        createElement(Status, { key: 2, task: Promise.resolve({ task_id: 'task_2' }) }),
        createElement(Status, { key: 3, task: undefined }),
      ]),
    );
    expect(html).toBe('<p>idle false</p><p>idle false</p><p>idle false</p>');
    expect(started).toEqual([]);
  });

  it('keeps nothing: 10,000 renders of distinct task ids leave no store entry (heap, after a GC)', { timeout: 120_000 }, () => {
    const { client, started } = fakeClient();
    function Status({ task }: { task: string }) {
      return createElement('p', null, useTask(task).status);
    }
    const gc = (globalThis as { gc?: () => void }).gc as () => void;
    const render = (from: number, count: number) => {
      for (let i = from; i < from + count; i++) renderToString(createElement(OmniMediaProvider, { client }, createElement(Status, { task: `task_ssr_${i}_${'x'.repeat(1_000)}` })));
    };
    render(0, 1_000); // warm up
    gc();
    const before = process.memoryUsage().heapUsed;
    render(2_000, 10_000);
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    // Before: every render left a store entry (100,000 renders: +63.6 MiB; these 10,000 with 1 KB ids: +10.8 MiB).
    expect(grown).toBeLessThan(4 * 1024 * 1024);
    expect(started).toEqual([]);
  });

  it('without a client it names what to do', () => {
    function Status() {
      return createElement('p', null, useTask('task_1').status);
    }
    expect(() => renderToString(createElement(Status))).toThrow(/OmniMediaProvider/);
  });
});
