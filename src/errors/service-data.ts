// What an error keeps of the service's data (a task): the same data without URL credentials
// (`user:password@`) or callback tokens, so that neither its fields nor `util.inspect(error)`
// nor `JSON.stringify(error)` hold them (issue 39: a result URL's password was in the
// inspected form of `files.download`'s error). The one redactor (internal/redact.ts) does it.
import { createKeylessRedactor, type Redactor } from '../internal/redact.ts';
import type { TaskResult } from '../schemas/task.ts';

let redactor: Redactor | undefined;

/** `task` as an error keeps it: itself when it holds nothing to remove, else a copy without it. */
export function taskForError<T extends TaskResult | undefined>(task: T): T {
  if (task === undefined) return task;
  const scrub = (redactor ??= createKeylessRedactor());
  return scrub.finds(JSON.stringify(task)) ? (scrub.data(task) as T) : task;
}
