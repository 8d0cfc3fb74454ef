// A page's build (resources/callbacks.browser.ts, callbacks/token.browser.ts) keeps what a page
// can use of callbacks, `parse` and `url`, and refuses the server's side (`verify`, `handler`,
// `nodeHandler`), saying where it runs and what a page uses instead.
import { describe, expect, it } from 'vitest';
import { OmniMediaError } from 'omnimedia';
import type { DeliveryPorts } from '../../src/callbacks/delivery.ts';
import { CallbackTokens as PageTokens } from '../../src/callbacks/token.browser.ts';
import { CALLBACK_TOKEN_PARAM, CallbackTokens } from '../../src/callbacks/token.ts';
import { Callbacks as PageCallbacks } from '../../src/resources/callbacks.browser.ts';

const SECRET = 'whsec-page-build-0000';
const task = { task_id: 'task_1', status: 'completed', created_at: 1_700_000_000 };

function pageCallbacks(tokens?: PageTokens): PageCallbacks {
  return new PageCallbacks({ delivery: { tokens } as unknown as DeliveryPorts });
}

describe('callbacks in a page (the browser twins)', () => {
  it('parse reads a callback body as parseCallback does', async () => {
    await expect(pageCallbacks().parse(JSON.stringify(task))).resolves.toMatchObject({ task_id: 'task_1', status: 'completed' });
  });

  it('url adds a token that the server side of the same secret accepts', async () => {
    const url = await pageCallbacks(new PageTokens(SECRET)).url('https://app.example/cb?x=1');
    expect(new URL(url).searchParams.get('x')).toBe('1');
    expect(new URL(url).searchParams.get(CALLBACK_TOKEN_PARAM)).toMatch(/^[\w-]{22}\.[\w-]+$/);
    await expect(new CallbackTokens(SECRET).accepts(url)).resolves.toBe(true);
    await expect(new CallbackTokens('another-secret-000').accepts(url)).resolves.toBe(false);
    await expect(pageCallbacks().url('https://app.example/cb')).resolves.toBe('https://app.example/cb');
  });

  it('tells the redactor the first form of each token, as the server side does', async () => {
    const learned: string[] = [];
    const serverLearned: string[] = [];
    await new PageTokens(SECRET, (token) => learned.push(token)).legacy;
    await new CallbackTokens(SECRET, (token) => serverLearned.push(token)).legacy;
    expect(learned).toHaveLength(1);
    expect(learned).toEqual(serverLearned);
  });

  it('verify, handler and nodeHandler refuse, naming where they run and what a page uses instead', async () => {
    const callbacks = pageCallbacks();
    const refusals = [
      await callbacks.verify(JSON.stringify(task)).then(() => undefined, (error: unknown) => error),
      (() => { try { callbacks.handler(() => {}); } catch (error) { return error; } })(),
      (() => { try { callbacks.nodeHandler(() => {}); } catch (error) { return error; } })(),
    ];
    for (const [i, method] of ['verify', 'handler', 'nodeHandler'].entries()) {
      expect(refusals[i]).toBeInstanceOf(OmniMediaError);
      expect((refusals[i] as Error).message).toContain(`client.callbacks.${method} runs on your server`);
      expect((refusals[i] as Error).message).toContain('client.tasks.wait(taskId)');
    }
  });
});
