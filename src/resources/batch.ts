/**
 * The batch engine's ports on a client's parts: the resources' own checks, submissions sent
 * once, uploads, waits and downloads. The engine comes through
 * batch/engine-entry.ts (none in a page's build).
 */
import type { BatchPorts } from '../batch/ports.ts';
import { MemoryBatchJournal } from '../coordination/batch-journal.ts';
import { ValidationError } from '../errors.ts';
import { IMAGE_UPLOAD_RULE, VIDEO_UPLOAD_RULE, prepareFile } from '../uploads/inputs.ts';
import { resultURLs, saveTaskFiles } from './files.ts';
import type { HttpClient } from '../transport/http-client.ts';
import type { Images } from './images.ts';
import type { Tasks } from './tasks.ts';
import type { Uploads } from './uploads.ts';
import type { Videos } from './videos.ts';

/** The client's parts a batch uses. */
export interface BatchParts {
  images: Images;
  videos: Videos;
  uploads: Uploads;
  tasks: Tasks;
  /** The client's HTTP layer: a batch's downloads (`saveTaskFiles`). */
  http: HttpClient;
}

/** Each client's journal of the batches given none (its parts key it): held as long as the client. */
const clientJournals = new WeakMap<BatchParts, MemoryBatchJournal>();

/** The ports of a batch on `parts`. */
export function batchPorts(parts: BatchParts): BatchPorts {
  let clientJournal = clientJournals.get(parts);
  if (!clientJournal) clientJournals.set(parts, (clientJournal = new MemoryBatchJournal()));
  const resource = (op: string) => {
    const [group, action] = op.split('.') as ['images' | 'videos', 'generate' | 'edit'];
    return { resource: parts[group], action };
  };
  return {
    async check(op, params) {
      const { resource: target, action } = resource(op);
      try {
        // `params` are plain data already (a file's JSON, or an item the engine read at its door).
        await target.submission(action).body(params, {});
        return [];
      } catch (error) {
        if (error instanceof ValidationError) return [...error.issues];
        throw error;
      }
    },
    async checkFile(file, kind) {
      try {
        await prepareFile(file, kind === 'image' ? IMAGE_UPLOAD_RULE : VIDEO_UPLOAD_RULE);
        return undefined;
      } catch (error) {
        if (error instanceof ValidationError) return error.issues.map((issue) => issue.message).join('; ');
        return (error as Error).message;
      }
    },
    async upload(file, kind, signal) {
      return kind === 'image' ? (await parts.uploads.image(file, { signal })).url : (await parts.uploads.video(file, { signal })).upload_id;
    },
    async submit(op, params) {
      const { resource: target, action } = resource(op);
      const method = target[action] as (params: never, options: { maxRetries: number }) => Promise<{ task_id: string }> & { wait: BatchWait };
      const pending = method.call(target, params as never, { maxRetries: 0 });
      const { task_id } = await pending;
      return { task_id, wait: (options) => pending.wait(options) };
    },
    wait: (taskId, options) => parts.tasks.wait(taskId, options),
    clientJournal,
    resultURLs: (task) => resultURLs(task, task.task_id),
    download: (task, id, directory, signal) => saveTaskFiles(parts.http, task, directory, id, { signal }),
  };
}

type BatchWait = Awaited<ReturnType<BatchPorts['submit']>>['wait'];
