// `omnimedia batch` as a child process running src/ (the repo's Node 24, types stripped and
// transformed), against a mock server in the test's process whose submissions are counted per
// job (by prompt) and can be held, so that a test kills the CLI at a chosen point.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startMockServer, type MockServer, type MockServerOptions } from 'omnimedia/testing';
import { childEnv } from './child-env.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const NODE = `${ROOT}node_modules/.bin/node`;
const HOOK = `${ROOT}test/helpers/omnimedia-from-src.mjs`;
const CLI = `${ROOT}src/cli/index.ts`;

/** What a request to the mock is, for a test's hooks. */
export type MockEvent = { kind: 'submission'; prompt: string } | { kind: 'query' } | { kind: 'file' } | { kind: 'upload' };

/**
 * The mock server with a hook before each request: it may return a promise, and the request is
 * answered only when it settles (the answer a killed client never reads). `accepted` counts the
 * submissions the mock took (2xx) per prompt.
 */
export interface CountingMock {
  server: MockServer;
  accepted: Map<string, number>;
  hook: ((event: MockEvent) => Promise<void> | void) | undefined;
  close(): Promise<void>;
}

export async function countingMock(options: MockServerOptions): Promise<CountingMock> {
  const server = await startMockServer(options);
  const inner = server.mock.handle;
  const state: CountingMock = { server, accepted: new Map(), hook: undefined, close: () => server.close() };
  const handle = async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    let prompt: string | undefined;
    let event: MockEvent | undefined;
    if (request.method === 'POST' && /^\/v1\/(images|video)\/(generations|edits|generate)$/.test(path)) {
      const body = (await request.clone().json()) as { prompt?: unknown; messages?: { content?: unknown }[] };
      // An image's prompt, or a video's message (a string, or its text part).
      const content = body.messages?.[0]?.content;
      const text = Array.isArray(content) ? (content.find((part: { type?: unknown }) => part.type === 'text') as { text?: unknown } | undefined)?.text : content;
      prompt = String(body.prompt ?? text);
      event = { kind: 'submission', prompt };
    } else if (request.method === 'GET' && path.startsWith('/v1/tasks/')) event = { kind: 'query' };
    else if (request.method === 'GET' && path.startsWith('/files/results/')) event = { kind: 'file' };
    else if (request.method === 'POST' && path.startsWith('/v1/uploads/')) event = { kind: 'upload' };
    if (event) await state.hook?.(event);
    const response = await inner(request);
    if (prompt !== undefined && response.ok) state.accepted.set(prompt, (state.accepted.get(prompt) ?? 0) + 1);
    return response;
  };
  (server.mock as { handle: typeof handle }).handle = handle;
  return state;
}

export interface BatchProcess {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/**
 * Start `omnimedia batch ...args` against `baseURL`; `wrapper` runs it under another command
 * (`['prlimit', '--fsize=900']`: a file-size limit, as on a full disk).
 */
export function startBatch(args: readonly string[], baseURL: string, cwd?: string, wrapper: readonly string[] = []): BatchProcess {
  const command = [...wrapper, NODE, '--experimental-transform-types', '--no-warnings', '--import', HOOK, CLI, 'batch', ...args];
  const child = spawn(command[0] as string, command.slice(1), {
    cwd,
    env: childEnv({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', OMNIMEDIA_BASE_URL: baseURL, OMNIMEDIA_API_KEY: 'sk-mock' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => void (stdout += text));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => void (stderr += text));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}
