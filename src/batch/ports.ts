/**
 * What the batch engine needs of a client, as narrow ports (client.ts builds them from its
 * resources): checks that send nothing, one submission attempt, waits, uploads, downloads.
 */
import type { BatchJournal } from '../coordination/batch-journal.ts';
import type { ValidationIssue } from '../errors.ts';
import type { WaitOptions } from '../options.ts';
import type { BatchOperation } from '../schemas/batch.ts';
import type { TaskResult } from '../schemas/task.ts';

export interface BatchPorts {
  /** The job's params (plain data: a file's JSON, or an item read at the door) checked by the rules of its op (nothing sent): every problem, none when valid. */
  check(op: BatchOperation, params: Record<string, unknown>): Promise<ValidationIssue[]>;
  /** A local file checked by the upload rules (type from its first bytes, size): the problem, if any. */
  checkFile(file: string, kind: 'image' | 'video'): Promise<string | undefined>;
  /** Upload a local file: its URL (an image) or upload id (a video). */
  upload(file: string, kind: 'image' | 'video', signal: AbortSignal): Promise<string>;
  /**
   * Send the submission once: no retry inside, so that each attempt is one journal entry
   * (the batch itself sends again what the service surely did not take), and no signal (a
   * submission on the wire is answered and journaled, never cut off).
   */
  submit(op: BatchOperation, params: Record<string, unknown>): Promise<{ task_id: string; wait(options: WaitOptions): Promise<TaskResult> }>;
  /** Wait on a task an earlier run submitted. */
  wait(taskId: string, options: WaitOptions): Promise<TaskResult>;
  /** A completed task's result URLs, each usable; else an `UnusableResultError` naming the task. */
  resultURLs(task: TaskResult): string[];
  /**
   * The client's own journal (in memory), for a batch given none: a later call on the same
   * client takes up the jobs it names (by id) where the earlier calls left them.
   */
  clientJournal: BatchJournal;
  /** Download a completed task's files into `directory` as `<id>.<ext>` (one) or `<id>-<k>.<ext>`. */
  download(task: TaskResult, id: string, directory: string, signal: AbortSignal): Promise<string[]>;
}
