import { isFailureStatus, TaskFailedError } from 'omnimedia';
import { CONNECTION_OPTIONS, OUTPUT_OPTIONS, WAIT_OPTIONS } from '../args.ts';
import { EXIT } from '../exit.ts';
import { printTask, waitFlags, waitForTask } from '../wait.ts';
import type { Command } from './command.ts';

export const tasksGet: Command = {
  spec: {
    name: 'tasks get',
    summary: 'Show a task once (GET /v1/tasks/{id}; needs no API key).',
    usage: 'TASK_ID [options]',
    positionals: ['TASK_ID'],
    options: { ...OUTPUT_OPTIONS, ...CONNECTION_OPTIONS },
    notes: ['Exit code 0 whatever the status, except 1 for a failed task.'],
    examples: ['omnimedia tasks get task_123', 'omnimedia tasks get task_123 --json | jq -r .status'],
  },
  async run(ctx, args) {
    const task = await ctx.client().tasks.retrieve(args.positionals[0] ?? '', { signal: ctx.signal });
    if (isFailureStatus(task.status)) {
      // A script asking about a failed task gets it on stdout, and the failure in the exit code.
      printTask(ctx, task);
      ctx.output.message(new TaskFailedError(task).message);
      return EXIT.taskFailed;
    }
    printTask(ctx, task);
    return EXIT.ok;
  },
};

export const tasksWait: Command = {
  spec: {
    name: 'tasks wait',
    summary: 'Wait for a task to finish, with live progress (resumes a wait from anywhere; needs no API key).',
    usage: 'TASK_ID [options]',
    positionals: ['TASK_ID'],
    options: { ...WAIT_OPTIONS, ...OUTPUT_OPTIONS, ...CONNECTION_OPTIONS },
    examples: [
      'omnimedia tasks wait task_123',
      'omnimedia tasks wait task_123 --out ./results --timeout 900',
      'omnimedia tasks wait task_123 --json | jq -r ".data[].url"',
    ],
  },
  async run(ctx, args) {
    return waitForTask(ctx, args.positionals[0] ?? '', { ...(await waitFlags(ctx)), wait: true });
  },
};
