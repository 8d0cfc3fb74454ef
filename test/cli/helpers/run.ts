import { main } from '../../../src/cli/main.ts';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run the CLI in-process with captured streams (not a terminal) and its own abort controller,
 * so Ctrl-C can be simulated with `interrupt`.
 */
export async function runCli(
  argv: string[],
  options: {
    env?: Record<string, string | undefined>;
    onStderr?: (text: string, interrupt: () => void) => void;
    onStdout?: (text: string, interrupt: () => void) => void;
    /** Abort it to press Ctrl-C. */
    controller?: AbortController;
    /** How the CLI was started (CliIO's `command`). */
    command?: string;
  } = {},
): Promise<RunResult> {
  const controller = options.controller ?? new AbortController();
  const out: string[] = [];
  const err: string[] = [];
  const interrupt = () => controller.abort(new Error('interrupted'));
  const code = await main(argv, {
    stdout: {
      write: (text: string) => {
        out.push(text);
        options.onStdout?.(text, interrupt);
      },
    },
    stderr: {
      isTTY: false,
      write: (text: string) => {
        err.push(text);
        options.onStderr?.(text, interrupt);
      },
    },
    env: options.env ?? {},
    signal: controller.signal,
    ...(options.command === undefined ? {} : { command: options.command }),
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}
