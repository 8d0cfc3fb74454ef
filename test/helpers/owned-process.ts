// Child processes a test file starts (redis-server, fleet instances, workers) end with the
// vitest worker that started them, however it ends:
// - its stdout and stderr are pipes to this process, never inherited: a child holding the
//   worker's own stderr kept vitest waiting for that pipe to close after the worker was gone
//   (`npm test` printed its summary and never exited, a redis-server still up);
// - a process 'exit' hook kills it (a run that ends with the child still up);
// - a watchdog shell kills it once this process is gone (a worker killed with SIGKILL runs no
//   hook). It polls once a second and ends with the child.
import { spawn, type ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();
let hooked = false;

function killLive(): void {
  for (const child of live) {
    child.kill('SIGKILL');
    child.kill('SIGCONT'); // a SIGSTOP'd one too
  }
}

/**
 * Own `child`: make sure it ends with this process, and forward its stderr (when piped; its
 * stdout too with `forwardStdout`, else reading it is the caller's). Returns it.
 */
export function owned<T extends ChildProcess>(child: T, options: { forwardStdout?: boolean } = {}): T {
  if (child.pid === undefined) return child;
  if (options.forwardStdout) child.stdout?.on('data', (chunk: Buffer) => process.stdout.write(chunk));
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!hooked) {
    hooked = true;
    process.once('exit', killLive);
  }
  const script = `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 1; done; kill -9 ${child.pid} 2>/dev/null`;
  const watchdog = spawn('sh', ['-c', script], { stdio: 'ignore', detached: true });
  watchdog.unref();
  child.once('exit', () => watchdog.kill('SIGKILL'));
  return child;
}
