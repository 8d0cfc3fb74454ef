/**
 * A finished task as the AI SDK wants it: the result files as bytes (downloaded by the
 * client: no key sent, retried, an abort ends it) and the task's record as provider metadata.
 */
import type { JSONObject } from '@ai-sdk/provider';
import { sniffMediaType, type OmniMedia, type TaskResult } from 'omnimedia';

/** One downloaded output of a task. */
export interface DownloadedOutput {
  data: Uint8Array;
  /** The result URL it came from (kept in the provider metadata). */
  url: string;
  /** From the bytes, else the response's Content-Type; `undefined` when neither says. */
  mediaType: string | undefined;
}

/** Every `data[].url` of the task, downloaded, in order. */
export async function downloadOutputs(client: OmniMedia, task: TaskResult, signal: AbortSignal | undefined): Promise<DownloadedOutput[]> {
  const blobs = await client.files.download(task, signal ? { signal } : {});
  return Promise.all(
    blobs.map(async (blob, index) => {
      const data = new Uint8Array(await blob.arrayBuffer());
      return { data, url: task.data?.[index]?.url ?? '', mediaType: sniffMediaType(data)?.mediaType ?? (blob.type || undefined) };
    }),
  );
}

const RECORD_FIELDS = ['model', 'normalized_model', 'provider', 'total_cost', 'attempt_count', 'elapsed_s', 'total_elapsed_s'] as const;

/**
 * The task's record for `providerMetadata.omnimedia`: its id and status, and what an app
 * reconciles bills and tickets with (`total_cost`, `attempt_count`, `provider`...), as the
 * service reported them.
 */
export function taskRecord(task: Pick<TaskResult, 'task_id' | 'status'> & Partial<TaskResult>): JSONObject {
  const record: JSONObject = { task_id: task.task_id, status: task.status };
  for (const field of RECORD_FIELDS) if (task[field] !== undefined) record[field] = task[field];
  return record;
}

/** The `response` of a model result: when the call started, and the model the service named. */
export function responseInfo(timestamp: Date, task: { model?: string | undefined } | undefined, modelId: string) {
  return { timestamp, modelId: task?.model ?? modelId, headers: undefined };
}
