import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { BASE_URL, useMsw } from '../helpers/msw.ts';
import { runCli } from './helpers/run.ts';

// What the CLI shows of what the service sends: times in any unit as dates, never a crash.
const server = useMsw();
const CONN = ['--base-url', BASE_URL];
const S = 1_800_000_000; // 2027-01-15T08:00:00Z

function serveTask(task: Record<string, unknown>): void {
  server.use(http.get(`${BASE_URL}/v1/tasks/:id`, () => HttpResponse.json({ task_id: 'task_1', status: 'processing', ...task })));
}

describe('tasks get: times as the service sends them', () => {
  it.each([
    ['seconds', S],
    ['ms (was shown as the year 58877)', S * 1e3],
    ['µs (was exit 70: RangeError: Invalid time value)', S * 1e6],
    ['ns', S * 1e9],
  ])('created_at in %s shows as the date', async (_, created_at) => {
    serveTask({ created_at });
    const run = await runCli(['tasks', 'get', 'task_1', ...CONN]);
    expect(run.stderr).not.toContain('internal error');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^created_at\s+2027-01-15T08:00:00\.000Z \(1800000000\)$/m);
  });

  it('a number that is no time is shown as sent, not a crash', async () => {
    serveTask({ created_at: 1e300, expires_at: -1e25 });
    const run = await runCli(['tasks', 'get', 'task_1', ...CONN]);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/^created_at/m); // read by the SDK as no time: left out
    expect(run.stdout).toMatch(/^expires_at\s+-1e\+25$/m); // not a known field of a task: kept as sent
  });
});

describe('describe: a record as aligned lines', () => {
  it('a time as the SDK gives it (epoch seconds) shows as its date and the value; anything else as sent (toISOString threw RangeError)', async () => {
    const { describe: describeRecord } = await import('../../src/cli/output.ts');
    const text = describeRecord({ created_at: S, completed_at: '2027-01-15T08:00:00Z', expires_at: 1e300 });
    expect(text.split('\n')).toEqual([
      'created_at    2027-01-15T08:00:00.000Z (1800000000)',
      'completed_at  2027-01-15T08:00:00Z',
      'expires_at    1e+300',
    ]);
  });
});

// Strings from the service, shown escaped, never interpreted: a window title, a screen clear,
// an 8-bit CSI, a right-to-left override, a line break that would forge a line.
const TITLE = '\x1b]0;pwned\x07';
const CLEAR = '\x1b[2J\x1b[H';
const EVIL = `${TITLE}proc${CLEAR}essing\x9b31m\u202Egnp.exe\nerror: forged`;
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('strings from the service are shown escaped', () => {
  it('tasks get: every field, unknown ones and their names too; in text and in --json', async () => {
    serveTask({ status: 'completed', model: EVIL, [`x${CLEAR}`]: EVIL, attempts: [{ attempt_no: 1, status: 'failed', fail_reason: EVIL }], data: [{ url: `https://r.test/${TITLE}.png` }] });
    const run = await runCli(['tasks', 'get', 'task_1', ...CONN]);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(UNSAFE);
    expect(run.stderr).not.toMatch(UNSAFE);
    expect(run.stdout).toContain('\\x1b]0;pwned\\x07proc\\x1b[2J\\x1b[Hessing\\x9b31m\\u{202e}gnp.exe\\nerror: forged');
    expect(run.stdout).not.toMatch(/^error: forged/m);
    const json = await runCli(['tasks', 'get', 'task_1', '--json', ...CONN]);
    expect(json.stdout).not.toMatch(UNSAFE);
    expect(JSON.parse(json.stdout).model).toBe(EVIL);
  });

  it('tasks wait: progress lines and the failure, status and fail_reason included', async () => {
    let polls = 0;
    server.use(
      http.get(`${BASE_URL}/v1/tasks/:id`, () =>
        HttpResponse.json(
          polls++ < 1
            ? { task_id: 'task_1', status: EVIL }
            : { task_id: 'task_1', status: 'failed', attempts: [{ attempt_no: 1, status: 'failed', fail_reason: EVIL }] },
        ),
      ),
    );
    const run = await runCli(['tasks', 'wait', 'task_1', '--interval', '0.001', ...CONN]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('\\x1b]0;pwned');
    expect(run.stderr).not.toMatch(UNSAFE);
    expect(run.stderr).not.toMatch(/^error: forged/m);
  });

  it('an API error: its message, request id and body', async () => {
    server.use(
      http.get(`${BASE_URL}/v1/tasks/:id`, () =>
        HttpResponse.json({ error: { message: EVIL } }, { status: 404, headers: { 'x-request-id': 'req\x9b31m' } }),
      ),
    );
    const run = await runCli(['tasks', 'get', 'task_1', ...CONN]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('\\x1b[2J');
    expect(run.stderr).not.toMatch(UNSAFE);
    expect(run.stderr).not.toMatch(/^error: forged/m);
  });
});
