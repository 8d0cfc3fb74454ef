/**
 * A finished task as the AI SDK wants it: the result files as bytes (downloaded by the
 * client: no key sent, retried, an abort ends it) and the task's record as provider metadata.
 */
import type { OmniMedia, TaskResult, TaskStatus } from 'omnimedia';
import { sniffMediaType } from 'omnimedia/schemas';

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

/**
 * The task behind a result, in `providerMetadata.omnimedia`: its id and status, and what an
 * app reconciles bills and tickets with, as the service reported them (a field it did not
 * report is absent).
 *
 * @example
 * ```ts
 * const { providerMetadata } = await generateVideo({ model: omni.video('omni_flash'), prompt: 'a fox' });
 * const task = providerMetadata.omnimedia as OmniMediaTaskRecord;
 * console.log(task.task_id, task.total_cost, task.attempt_count, task.provider);
 * ```
 */
export type OmniMediaTaskRecord = {
  /** The task's id. */
  task_id: string;
  /** Its status at the end (`completed`). */
  status: TaskStatus;
  /** The model it ran on. */
  model?: string;
  /** Video tasks: the billing specification matched, e.g. `omni_flash_1080p_8s`. */
  normalized_model?: string;
  /** The provider that finished it. */
  provider?: string;
  /** Its cost, as the service reported it. */
  total_cost?: number;
  /** How many providers were tried. */
  attempt_count?: number;
  /** Seconds the final attempt took. */
  elapsed_s?: number;
  /** Seconds across all attempts. */
  total_elapsed_s?: number;
};

/**
 * `providerMetadata.omnimedia` of one `generateImage` call (`result.calls[i]`): the task, and
 * one entry per image. At the top of the result the AI SDK keeps only `images`, and each
 * image's entry is also its own `providerMetadata.omnimedia`.
 *
 * @example
 * ```ts
 * const { calls, images } = await generateImage({ model: omni.image('omni-image'), prompt: 'a fox', n: 2 });
 * const task = calls[0]!.providerMetadata!.omnimedia as OmniMediaImageMetadata;
 * console.log(task.task_id, task.total_cost, images[1]!.providerMetadata?.omnimedia?.url);
 * ```
 */
export type OmniMediaImageMetadata = OmniMediaTaskRecord & {
  /** One entry per image, in order: its task and result URL. */
  images: { task_id: string; url: string }[];
};

/**
 * `providerMetadata.omnimedia` of `experimental_generateVideo`: the task, and each video's
 * result URL (the video itself is downloaded: `result.video.uint8Array`).
 *
 * @example
 * ```ts
 * const { providerMetadata } = await generateVideo({ model: omni.video('omni_flash'), prompt: 'a fox' });
 * const { task_id, normalized_model, videos } = providerMetadata.omnimedia as OmniMediaVideoMetadata;
 * ```
 */
export type OmniMediaVideoMetadata = OmniMediaTaskRecord & {
  /** One entry per video, in order: its result URL. */
  videos: { url: string }[];
};

const RECORD_FIELDS = ['model', 'normalized_model', 'provider', 'total_cost', 'attempt_count', 'elapsed_s', 'total_elapsed_s'] as const;

/** The task's record for `providerMetadata.omnimedia`, from a submission or a result. */
export function taskRecord(task: Pick<TaskResult, 'task_id' | 'status'> & Partial<TaskResult>): OmniMediaTaskRecord {
  const record: OmniMediaTaskRecord = { task_id: task.task_id, status: task.status };
  for (const field of RECORD_FIELDS) if (task[field] !== undefined) Object.assign(record, { [field]: task[field] });
  return record;
}

/** The `response` of a model result: when the call started, and the model the service named. */
export function responseInfo(timestamp: Date, task: { model?: string | undefined } | undefined, modelId: string) {
  return { timestamp, modelId: task?.model ?? modelId, headers: undefined };
}
