import type { Attributes } from '@opentelemetry/api';

/** `omnimedia.operation` of each SDK call, by the name the core gives it. */
export const OPERATIONS: Readonly<Record<string, string>> = {
  'images.generate': 'image_generation',
  'images.edit': 'image_edit',
  'videos.generate': 'video_generation',
  'videos.edit': 'video_edit',
  'uploads.image': 'upload',
  'uploads.video': 'upload',
  'tasks.retrieve': 'task_query',
  'tasks.wait': 'wait',
  'files.download': 'download',
  'callbacks.handle': 'callback',
};

/**
 * The route template of an API path, which names a request's span: the task query's id
 * becomes `{task_id}` (a span name never holds an id).
 */
export function routeOf(path: string): string {
  return path.replace(/^(v1\/tasks\/)[^/]+$/, '$1{task_id}');
}

/** The GenAI attributes dashboards read, for the operations that submit a task. */
const GEN_AI: Readonly<Record<string, readonly [operation: string, output: string]>> = {
  image_generation: ['generate_image', 'image'],
  image_edit: ['edit_image', 'image'],
  video_generation: ['generate_video', 'video'],
  video_edit: ['edit_video', 'video'],
};

/** The attributes a call's span starts with. */
export function callAttributes(operation: string | undefined): Attributes {
  const attributes: Attributes = { 'omnimedia.operation': operation };
  const genAI = operation ? GEN_AI[operation] : undefined;
  if (genAI) {
    attributes['gen_ai.operation.name'] = genAI[0];
    attributes['gen_ai.output.type'] = genAI[1];
  }
  return attributes;
}

/** `true` when the operation is one the GenAI conventions describe (a submission). */
export function isGenAI(operation: string | undefined): boolean {
  return operation !== undefined && operation in GEN_AI;
}

/** A task as a call saw it or returned it: its id and status, when it is one. */
export interface TaskLike {
  task_id: string;
  status?: unknown;
  operation?: unknown;
}

/** `value` when it is a task (or a submission): an object with a string `task_id`. */
export function asTask(value: unknown): TaskLike | undefined {
  return value && typeof value === 'object' && typeof (value as { task_id?: unknown }).task_id === 'string' ? (value as TaskLike) : undefined;
}

/** The task an error is about, when it carries one: a failed task's, or the last one a timed-out wait saw. */
export function taskOfError(error: unknown): TaskLike | undefined {
  const carrier = error as { task?: unknown; lastTask?: unknown } | null | undefined;
  return asTask(carrier?.task) ?? asTask(carrier?.lastTask);
}

/**
 * `error.type`: the error's class name (`RateLimitError`, `TaskFailedError`, `AbortError`,
 * `TypeError`...), else `_OTHER`, the conventions' word for an error of no known type. Never
 * its message, which may quote what the caller or the service wrote.
 */
export function errorType(error: unknown): string {
  const name = (error as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' && /^\w{1,64}$/.test(name) ? name : '_OTHER';
}

/** A status word fit for an attribute: a string (the service's), else nothing. */
export function statusOf(task: TaskLike | undefined): string | undefined {
  return typeof task?.status === 'string' ? task.status : undefined;
}

/**
 * What an HTTP client span and its metric record of a URL: `url.full` without userinfo, query
 * or fragment (a signed result URL keeps its signature in the query), `server.address` and
 * `server.port`.
 */
export function urlAttributes(url: string): { full: string; address: string; port: number } | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  const address = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return { full: `${parsed.protocol}//${parsed.host}${parsed.pathname}`, address, port };
}
