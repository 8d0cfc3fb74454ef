import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  APIConnectionError,
  APIError,
  OmniMediaError,
  TaskFailedError,
  ValidationError,
  WaitTimeoutError,
  isFailureStatus,
  isTerminalStatus,
  type OmniMedia,
  type TaskResult,
} from 'omnimedia';
import { errorText } from '../internal/error-text.ts';
import { sniffMediaType } from '../schemas/sniff.ts';
import { TooLarge, downloadAtMost, mib } from './capped-download.ts';
import type { Scrub } from './redaction.ts';
import { MAX_EMBEDDED_BYTES, MAX_EMBEDDED_IMAGE_BYTES, MAX_EMBEDDED_IMAGES, type RenderBudget } from './render-budget.ts';
import { savedFiles } from './saved-files.ts';
import { CallCancelled } from './tool-call.ts';

type Content = CallToolResult['content'][number];

/** What a result needs besides the task. */
export interface ResultContext {
  client: OmniMedia;
  embedImages: boolean;
  downloadDir: string | undefined;
  scrub: Scrub;
}

const MEDIA_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
};

/** A result file's name, as `files.download` names the files it saves: `<task_id>-<index>.<ext>` (the URL's extension). */
function fileNameOf(url: string, taskId: string, index: number): string {
  const last = URL.canParse(url) ? (new URL(url).pathname.split('/').pop() ?? '') : '';
  const ext = /\.([A-Za-z0-9]{1,5})$/.exec(last)?.[1];
  return `${taskId}-${index}${ext ? `.${ext.toLowerCase()}` : ''}`;
}

const mediaTypeOf = (name: string): string | undefined => MEDIA_TYPES[name.split('.').pop()?.toLowerCase() ?? ''];

/** The task's result URLs, in order. */
const urlsOf = (task: TaskResult): string[] => (task.data ?? []).map((output) => output?.url).filter((url): url is string => typeof url === 'string');

/** The text every result starts with: a line for the agent, then the task as JSON (for clients that read no structured content). */
const textOf = (line: string, data: unknown): Content => ({ type: 'text', text: `${line}\n${JSON.stringify(data, null, 2)}` });

/** The link of a result URL: only an http(s) one (a service's `javascript:` or `file:` URI is no link to hand an agent). */
function linkOf(url: string, name: string): Content | undefined {
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) return undefined;
  const mimeType = mediaTypeOf(name);
  return { type: 'resource_link', uri: url, name, ...(mimeType ? { mimeType } : {}) };
}

/** `Image 2`, `Images 1, 3`: result numbers for a note. */
const imagesNamed = (indices: readonly number[]) => `${indices.length === 1 ? 'Image' : 'Images'} ${indices.map((i) => i + 1).join(', ')}`;

/**
 * A finished task as a tool result: `structuredContent` the task; a `resource_link` per http(s)
 * result URL (name and media type); with `downloadDir` each file saved (or found saved already
 * for this task) and linked as `file://`; with `embedImages` image blocks within the `budget`
 * (4 images, 1 MiB each, 4 MiB in all, by its deadline). Nothing is read past a limit: a file
 * over it is refused from its Content-Length, or as it streams past. What is not embedded or
 * saved is linked, and a line says why: the task succeeded.
 */
export async function completedResult(task: TaskResult, context: ResultContext, budget: RenderBudget): Promise<CallToolResult> {
  const urls = urlsOf(task);
  const notes: string[] = [];
  const links: Content[] = [];
  const unlinked: number[] = [];
  urls.forEach((url, i) => {
    const link = linkOf(url, fileNameOf(url, task.task_id, i));
    if (link) links.push(link);
    else unlinked.push(i);
  });
  if (unlinked.length > 0) notes.push(`${unlinked.length === 1 ? 'Result' : 'Results'} ${unlinked.map((i) => i + 1).join(', ')}: not an http(s) URL, not linked.`);
  const saved = context.downloadDir !== undefined && urls.length > 0 ? await savedFiles(task, context.client, context.downloadDir, budget, notes) : [];
  for (const path of saved) {
    const mimeType = mediaTypeOf(path);
    links.push({ type: 'resource_link', uri: pathToFileURL(path).href, name: basename(path), ...(mimeType ? { mimeType } : {}) });
  }
  const images = context.embedImages ? await embedded(task, urls, saved, context.client, budget, notes) : [];
  const count = urls.length === 1 ? '1 file' : `${urls.length} files`;
  const line = [`Task ${task.task_id} completed: ${count}.`, ...urls, ...saved.map((path) => `Saved: ${path}`), ...notes].join('\n');
  return context.scrub({ content: [textOf(line, task), ...links, ...images], structuredContent: task as unknown as Record<string, unknown> });
}

/** The image blocks of `task`'s image results, as many as `budget` allows; a note for each left out. */
async function embedded(task: TaskResult, urls: readonly string[], saved: readonly string[], client: OmniMedia, budget: RenderBudget, notes: string[]): Promise<Content[]> {
  const content: Content[] = [];
  const late: number[] = [];
  let more = 0;
  for (const [i, url] of urls.entries()) {
    if (!(mediaTypeOf(fileNameOf(url, task.task_id, i))?.startsWith('image/') ?? task.media_type === 'image')) continue;
    if (budget.outOfTime) {
      late.push(i);
      continue;
    }
    const room = budget.imageRoom();
    if (room === 0) {
      more++;
      continue;
    }
    const bytes = await imageBytes(client, url, saved[i], room, budget.signal).catch((error: unknown) => {
      if (error instanceof TooLarge)
        notes.push(
          error.limit === MAX_EMBEDDED_IMAGE_BYTES
            ? `Image ${i + 1} is over 1 MiB: linked, not embedded.`
            : `Image ${i + 1} would pass the ${mib(MAX_EMBEDDED_BYTES)} of images one answer embeds: linked, not embedded.`,
        );
      else if (budget.outOfTime) late.push(i);
      else notes.push(`Image ${i + 1} could not be fetched to embed: ${errorText(error)}`);
      return undefined;
    });
    const type = bytes && sniffMediaType(bytes)?.mediaType;
    if (!bytes || !type?.startsWith('image/')) continue;
    budget.spend(bytes.byteLength);
    content.push({ type: 'image', data: Buffer.from(bytes).toString('base64'), mimeType: type });
  }
  if (more > 0) notes.push(`${more} more ${more === 1 ? 'image' : 'images'} linked, not embedded (one answer embeds at most ${MAX_EMBEDDED_IMAGES} images, ${mib(MAX_EMBEDDED_BYTES)} in all).`);
  if (late.length > 0) notes.push(`${imagesNamed(late)} not embedded: ${budget.why}; linked.`);
  return content;
}

/** An image's bytes, at most `room`: from the saved file when there is one, else downloaded (never more than `room` read). */
async function imageBytes(client: OmniMedia, url: string, saved: string | undefined, room: number, signal: AbortSignal): Promise<Uint8Array> {
  if (saved === undefined) return downloadAtMost(client, url, room, signal);
  const { size } = await stat(saved);
  if (size > room) throw new TooLarge(room, size);
  return new Uint8Array(await readFile(saved, { signal }));
}

/** A task that is still running when the call stops waiting: not an error, with what to do next. */
export function runningResult(task: TaskResult, waitedMs: number, scrub: Scrub): CallToolResult {
  const line =
    `Task ${task.task_id} is still ${task.status} after ${Math.round(waitedMs / 1000)} s. ` +
    `Call get_task with {"task_id": "${task.task_id}"} to wait for its result; do not submit it again (that would be a second, billed task).`;
  return scrub({ content: [textOf(line, task)], structuredContent: task as unknown as Record<string, unknown> });
}

/** The batch's words for a submission sent with no answer (`unknown`), and what a retry costs. */
const LOST_ANSWER =
  'The submission was sent and no answer was received: the task may exist, and be billed. ' +
  'Submitting it again may pay twice: do not retry it unless the user accepts that.';

/** A connection that failed once the submission was on its way (not one that never reached the service). */
const isLostAnswer = (error: unknown): boolean => error instanceof APIConnectionError && !/: could not reach /.test(error.message);

/** The task id an error carries, if any. */
function taskIdOf(error: unknown): string | undefined {
  if (error instanceof TaskFailedError) return error.task.task_id;
  if (error instanceof WaitTimeoutError) return error.taskId;
  return (error as { taskId?: unknown } | undefined)?.taskId as string | undefined;
}

/**
 * A tool's own failure as a tool result (`isError`): the error class, the fields and rules it
 * broke (a `ValidationError`: nothing was sent), the HTTP status and request id, the task id
 * when there is one, and what to do. `task`: the last task seen, for `structuredContent`;
 * `sent`: the submission was sent (a connection lost then may have left a billed task).
 */
export function errorResult(error: unknown, scrub: Scrub, task?: TaskResult, sent = false): CallToolResult {
  if (error instanceof CallCancelled) return cancelledResult(error, scrub, task);
  const name = error instanceof OmniMediaError ? error.name : 'Error';
  const lines = [`${name}: ${errorText(error)}`];
  const record: Record<string, unknown> = { name, message: errorText(error) };
  if (error instanceof ValidationError) {
    lines.push(`Fields: ${error.issues.map((issue) => `${issue.path || '(the input)'}: ${issue.message}`).join('; ')}`, 'Nothing was sent.');
    record.issues = error.issues;
  }
  if (error instanceof APIError && error.status !== undefined) {
    lines.push(`HTTP status: ${error.status}${error.requestId ? ` (request id ${error.requestId})` : ''}`);
    record.status = error.status;
    if (error.requestId) record.request_id = error.requestId;
  }
  const taskId = taskIdOf(error) ?? task?.task_id;
  if (taskId !== undefined) {
    lines.push(`task_id: ${taskId}`);
    record.task_id = taskId;
  }
  if (error instanceof WaitTimeoutError || (taskId !== undefined && !(error instanceof TaskFailedError) && !isTerminalStatus(task?.status ?? '')))
    lines.push('The task may still be running: call get_task with its task_id to follow it; do not submit it again.');
  if (error instanceof TaskFailedError && isFailureStatus(error.task.status)) record.task = error.task;
  if (sent && taskId === undefined && isLostAnswer(error)) {
    lines.push(LOST_ANSWER);
    record.task_may_exist = true;
  }
  return scrub({ content: [{ type: 'text', text: lines.join('\n') }], structuredContent: { error: record }, isError: true });
}

/**
 * A call that was cancelled: before its submission was sent (nothing submitted, nothing billed),
 * or after (the task exists and runs on: its task_id, and how to follow it).
 */
function cancelledResult(error: CallCancelled, scrub: Scrub, task: TaskResult | undefined): CallToolResult {
  const record: Record<string, unknown> = { name: 'Cancelled', message: error.message };
  const line =
    task === undefined
      ? `Cancelled (${error.message}) before the submission was sent: nothing was submitted, nothing is billed.`
      : `Cancelled (${error.message}) after the submission was sent: task_id ${task.task_id} exists and runs on (the service has no cancel; it is billed). ` +
        `Call get_task with {"task_id": "${task.task_id}"} to follow it; do not submit it again.`;
  if (task !== undefined) record.task_id = task.task_id;
  return scrub({ content: [{ type: 'text', text: line }], structuredContent: { error: record }, isError: true });
}
