/**
 * `omni.video(model)`: an AI SDK video model (v4) on the client's `videos.generate` and
 * `videos.edit`. `doGenerate` (what `experimental_generateVideo` calls without `poll` or
 * `webhook`) submits and waits on the client's poller (its cadence, its learned durations);
 * `doStart`/`doStatus` serve the AI SDK's own polling (`poll`), `experimental_startVideo` and
 * `experimental_getVideoStatus`; `handleWebhookOption` lets a verified completion callback end
 * the generation, with the client's polling as the fallback.
 */
import type {
  Experimental_VideoModelV4 as VideoModelV4,
  Experimental_VideoModelV4CallOptions as VideoModelV4CallOptions,
  Experimental_VideoModelV4OperationStartResult as VideoModelV4OperationStartResult,
  Experimental_VideoModelV4OperationStatusResult as VideoModelV4OperationStatusResult,
  Experimental_VideoModelV4OperationWebhook as Webhook,
  Experimental_VideoModelV4Result as VideoModelV4Result,
  Experimental_VideoModelV4VideoData as VideoModelV4VideoData,
  JSONValue,
  SharedV4Warning,
} from '@ai-sdk/provider';
import { isFailureStatus, isSuccessStatus, OmniMediaError, TaskFailedError, ValidationError, type OmniMedia, type TaskResult } from 'omnimedia';
import { downloadOutputs, responseInfo, taskRecord, type OmniMediaVideoMetadata } from './results.ts';
import { readCall } from './call-options.ts';
import { planVideo, type VideoPlan } from './video-params.ts';
import { WebhookCompletion, type CallbackHandler, type SettledTask } from './webhook.ts';

/**
 * A video model of the service. `omni_flash`, `omni_flash_components` and `omni_flash_edit`
 * name one family: the call's inputs pick which the task uses (text, reference images, a video
 * to edit). Any other id is sent as it is.
 *
 * @example
 * ```ts
 * const model: OmniMediaVideoModelId = 'omni_flash';
 * await generateVideo({ model: omni.video(model), prompt: 'a paper boat on a river' });
 * ```
 */
export type OmniMediaVideoModelId = 'omni_flash' | 'omni_flash_components' | 'omni_flash_edit' | (string & {});

/**
 * `providerOptions.omnimedia` of `experimental_generateVideo`: request fields the AI SDK has no
 * option for, checked by the client like the others.
 *
 * @example
 * ```ts
 * await generateVideo({
 *   model: omni.video('omni_flash'),
 *   prompt: 'make it snow',
 *   providerOptions: { omnimedia: { input_video: clip.upload_id } satisfies OmniMediaVideoProviderOptions },
 * });
 * ```
 */
export interface OmniMediaVideoProviderOptions {
  /** A video already uploaded (its `upload_id`): the call is an edit of it. */
  input_video?: string;
  /** The service POSTs the finished task here (`experimental_startVideo` also takes `webhookUrl`). */
  callback_url?: string;
}

/** The `operation` the AI SDK keeps between `doStart` and `doStatus`. */
interface Operation {
  task_id: string;
}

/** Tasks the webhook path already read, for the one `doStatus` the AI SDK makes after it. Bounded. */
const MAX_SETTLED = 256;
/**
 * How long a webhook completion waits for its `doStart`, in ms: the AI SDK calls it at once (in
 * the same turn of the event loop); one not taken by then was abandoned, and must neither stay
 * in memory nor be taken by a later generation that uses the same URL.
 */
const COMPLETION_TAKEN_WITHIN_MS = 5_000;

/**
 * The longest one `doStatus` waits for a read that succeeds: transient failures (a 502, a
 * reset) are retried inside it as in any wait, but `experimental_getVideoStatus` is one check,
 * not a wait. The AI SDK's poll loop aborts it sooner at its own deadline.
 */
const STATUS_READ_TIMEOUT_MS = 60_000;

function operationTaskId(operation: JSONValue): string {
  const taskId = (operation as Partial<Operation> | null)?.task_id;
  if (typeof taskId !== 'string' || taskId === '')
    throw new ValidationError([{ path: 'operation', message: 'must be the { task_id } that doStart returned' }], 'omnimedia video status');
  return taskId;
}

/**
 * The video model `omni.video(modelId)` returns: an AI SDK `Experimental_VideoModelV4`.
 *
 * @example
 * ```ts
 * const { videos } = await generateVideo({ model: omni.video('omni_flash'), prompt: 'a fox', duration: 8 });
 * ```
 */
export class OmniMediaVideoModel implements VideoModelV4 {
  /** The AI SDK's video model interface, version 4. */
  readonly specificationVersion = 'v4';
  /** `omnimedia.video`, for the AI SDK's logs. */
  readonly provider = 'omnimedia.video';
  /** The model id given to `omni.video`. */
  readonly modelId: string;
  /** 1: a task makes one video; the AI SDK makes one task per video asked for. */
  readonly maxVideosPerCall = 1;
  readonly #client: OmniMedia;
  /** `handleWebhookOption`'s completions, by their URL, until `doStart` takes them. */
  readonly #completions = new Map<string, WebhookCompletion[]>();
  readonly #settled = new Map<string, SettledTask>();
  /** Webhook deliveries go through the client's own callback handler (made at the first one). */
  #handle: CallbackHandler | undefined;

  /** @internal Made by `omni.video(modelId)`. */
  constructor(modelId: string, client: OmniMedia) {
    this.modelId = modelId;
    this.#client = client;
  }

  #submit(plan: VideoPlan, signal: AbortSignal | undefined) {
    const options = signal ? { signal } : {};
    return plan.kind === 'edit' ? this.#client.videos.edit(plan.params, options) : this.#client.videos.generate(plan.params, options);
  }

  /** A finished task's videos, downloaded, and its record. */
  async #finished(task: TaskResult, signal: AbortSignal | undefined) {
    const outputs = await downloadOutputs(this.#client, task, signal);
    const videos: VideoModelV4VideoData[] = outputs.map(({ data, mediaType }) => ({ type: 'binary', data, mediaType: mediaType ?? 'video/mp4' }));
    return { videos, providerMetadata: { omnimedia: { ...taskRecord(task), videos: outputs.map(({ url }) => ({ url })) } satisfies OmniMediaVideoMetadata } };
  }

  /**
   * Submit the task and wait for it on the client's poller, then download the video. What
   * `experimental_generateVideo` calls when given neither `poll` nor `webhook`.
   */
  async doGenerate(options: VideoModelV4CallOptions): Promise<VideoModelV4Result> {
    const { plan, warnings } = readCall(() => planVideo(options, this.modelId), 'omnimedia video call');
    const signal = options.abortSignal;
    const timestamp = new Date();
    const task = await this.#submit(plan, signal).wait(signal ? { signal } : {});
    return { ...(await this.#finished(task, signal)), warnings, response: responseInfo(timestamp, task, this.modelId) };
  }

  /**
   * Called by `experimental_generateVideo` with `webhook`: creates the app's webhook endpoint,
   * whose URL becomes the task's `callback_url`. The generation ends when a delivery verified
   * by one read of the task shows it ended, or when the client's polling sees it end first.
   */
  async handleWebhookOption(options: {
    webhook: () => PromiseLike<{ url: string; received: PromiseLike<Webhook> }>;
  }): Promise<{ webhookUrl: string; received: PromiseLike<Webhook> }> {
    const { url, received } = await options.webhook();
    this.#dropAbandoned();
    const completion = new WebhookCompletion(received);
    this.#completions.set(url, [...(this.#completions.get(url) ?? []), completion]);
    return { webhookUrl: url, received: completion.received };
  }

  /** Submit the task (with `webhookUrl` as its `callback_url`) and return `{ task_id }`. */
  async doStart(options: VideoModelV4CallOptions & { webhookUrl?: string }): Promise<VideoModelV4OperationStartResult> {
    const completion = options.webhookUrl === undefined ? undefined : this.#takeCompletion(options.webhookUrl);
    try {
      const { plan, warnings } = readCall(() => planVideo(options, this.modelId), 'omnimedia video call');
      const signal = options.abortSignal;
      const timestamp = new Date();
      const submitted = this.#submit(plan, signal);
      const submission = await submitted;
      if (completion) {
        // Each delivery is handled on its own (no dedupe): the app's endpoint already chose it.
        this.#handle ??= this.#client.callbacks.handler(() => {}, { dedupe: false });
        const remember = (end: SettledTask) => this.#remember(submission.task_id, end);
        completion.follow({ client: this.#client, handle: this.#handle, submitted, taskId: submission.task_id, callbackUrl: options.webhookUrl as string, signal, settled: remember });
      }
      return { operation: { task_id: submission.task_id } satisfies Operation, warnings, providerMetadata: { omnimedia: taskRecord(submission) }, response: responseInfo(timestamp, submission, this.modelId) };
    } catch (error) {
      completion?.abandon(error);
      throw error;
    }
  }

  /**
   * Observe the task once: `pending`, or `completed` with the video downloaded; a failed task
   * throws `TaskFailedError`. After a webhook, the task the webhook path read is used again.
   */
  async doStatus(options: { operation: JSONValue; abortSignal?: AbortSignal; headers?: Record<string, string | undefined> }): Promise<VideoModelV4OperationStatusResult> {
    const taskId = readCall(() => operationTaskId(options.operation), 'omnimedia video status');
    const signal = options.abortSignal;
    const timestamp = new Date();
    const settled = this.#settled.get(taskId);
    this.#settled.delete(taskId);
    const task = settled?.task ?? (await this.#observe(taskId, signal));
    const warnings: SharedV4Warning[] = settled?.warnings ?? [];
    const response = responseInfo(timestamp, task, this.modelId);
    if (isFailureStatus(task.status)) throw new TaskFailedError(task);
    if (!isSuccessStatus(task.status)) return { status: 'pending', warnings, providerMetadata: { omnimedia: taskRecord(task) }, response };
    return { status: 'completed', ...(await this.#finished(task, signal)), warnings, response };
  }

  /**
   * One observation of the task through the client's poller (`tasks.watch`, stopped at its
   * first item), not a bare query: it is paced by the client's query budget, rides out a
   * transient failure, learns the task's duration and clears its journal entry once it ended.
   */
  async #observe(taskId: string, signal: AbortSignal | undefined): Promise<TaskResult> {
    for await (const task of this.#client.tasks.watch(taskId, { timeout: STATUS_READ_TIMEOUT_MS, ...(signal ? { signal } : {}) })) return task;
    throw new OmniMediaError(`task ${taskId}: the watch ended without a task`, { taskId });
  }

  /** Completions no `doStart` took in time: abandoned (their `received` is not awaited). */
  #dropAbandoned(): void {
    const before = Date.now() - COMPLETION_TAKEN_WITHIN_MS;
    for (const [url, waiting] of this.#completions) {
      const live = waiting.filter((completion) => completion.madeAt >= before);
      if (live.length === 0) this.#completions.delete(url);
      else if (live.length < waiting.length) this.#completions.set(url, live);
    }
  }

  #takeCompletion(url: string): WebhookCompletion | undefined {
    this.#dropAbandoned();
    const waiting = this.#completions.get(url);
    const completion = waiting?.shift();
    if (waiting?.length === 0) this.#completions.delete(url);
    return completion;
  }

  #remember(taskId: string, end: SettledTask): void {
    this.#settled.set(taskId, end);
    // The AI SDK reads it at once; one it never reads (an abort in between) is let go in time.
    if (this.#settled.size > MAX_SETTLED) this.#settled.delete(this.#settled.keys().next().value as string);
  }
}
