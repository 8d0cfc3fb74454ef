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
  it('a time in any unit shows as its date and the value as sent; one that is no time, as sent (toISOString threw RangeError)', async () => {
    const { describe: describeRecord } = await import('../../src/cli/output.ts');
    const text = describeRecord({ created_at: S * 1e6, completed_at: '2027-01-15T08:00:00Z', expires_at: 1e300 });
    expect(text.split('\n')).toEqual([
      'created_at    2027-01-15T08:00:00.000Z (1800000000000000)',
      'completed_at  2027-01-15T08:00:00.000Z (2027-01-15T08:00:00Z)',
      'expires_at    1e+300',
    ]);
  });
});
