import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { OmniMedia, TaskResult } from 'omnimedia';
import { errorText } from '../internal/error-text.ts';
import type { RenderBudget } from './render-budget.ts';

/**
 * An id `files.download` keeps as it is in a file name (`<task_id>-<index>.<ext>`): other ids
 * are percent-encoded or cut there, and their files are not looked for (downloaded again).
 */
const PLAIN_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,159}$/;

/** The files already saved in `dir` for `task`, one per result in order; `undefined` unless all are there. */
async function alreadySaved(task: TaskResult, count: number, dir: string): Promise<string[] | undefined> {
  if (!PLAIN_ID.test(task.task_id)) return undefined;
  const names = await readdir(dir).catch(() => [] as string[]);
  const found: string[] = [];
  for (let i = 0; i < count; i++) {
    // `<id>-<i>.<ext>` exactly: not a partial download (`.<random>.part`), not another task's.
    const name = names.find((n) => n.startsWith(`${task.task_id}-${i}.`) && /^\.[A-Za-z0-9]{1,5}$/.test(n.slice(`${task.task_id}-${i}`.length)));
    if (name === undefined) return undefined;
    found.push(join(dir, name));
  }
  return found;
}

/**
 * `task`'s result files in `dir`: those saved already for this task (a `get_task` after the
 * call, a redelivered request: the same files, not downloaded again), else downloaded there by
 * the client (streamed to disk: no file is held in memory) by the budget's deadline. What could
 * not be saved is a note; the links to the service's URLs remain.
 */
export async function savedFiles(task: TaskResult, client: OmniMedia, dir: string, budget: RenderBudget, notes: string[]): Promise<string[]> {
  const count = (task.data ?? []).length;
  const found = await alreadySaved(task, count, dir);
  if (found) return found;
  try {
    // Whatever is there of this task's files (some saved, not all) is the same result again.
    return await client.files.download(task, { to: dir, overwrite: true, signal: budget.signal });
  } catch (error) {
    notes.push(`The files could not be saved in ${dir}: ${budget.outOfTime ? `${budget.why}; call get_task with the task_id to save them` : errorText(error)}`);
    return [];
  }
}
