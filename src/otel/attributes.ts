import type { Attributes } from '@opentelemetry/api';
import { urlForRecord } from '../internal/redact.ts';
import type { TelemetryCallRequest } from '../telemetry/ports.ts';

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
  return path.startsWith('v1/tasks/') ? 'v1/tasks/{task_id}' : path;
}

/** The GenAI attributes dashboards read, for the operations that submit a task. */
const GEN_AI: Readonly<Record<string, readonly [operation: string, output: string]>> = {
  image_generation: ['generate_image', 'image'],
  image_edit: ['edit_image', 'image'],
  video_generation: ['generate_video', 'video'],
  video_edit: ['edit_video', 'video'],
};

const MAX_MODEL_LENGTH = 256;

/**
 * The attributes a call's span starts with: its operation and, from the request (before
 * anything is sent, so a refused submission has them too), its model.
 */
export function callAttributes(operation: string | undefined, request?: TelemetryCallRequest): Attributes {
  const attributes: Attributes = { 'omnimedia.operation': operation };
  const genAI = operation ? GEN_AI[operation] : undefined;
  if (genAI) {
    attributes['gen_ai.operation.name'] = genAI[0];
    attributes['gen_ai.output.type'] = genAI[1];
  }
  const model = request?.model;
  // A model name is short; a longer string is no model, and an attribute is no place for it.
  if (typeof model === 'string' && model && model.length <= MAX_MODEL_LENGTH) {
    attributes['omnimedia.model'] = model;
    if (genAI) attributes['gen_ai.request.model'] = model;
  }
  return attributes;
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
 * What an HTTP client span and its metric record of a URL, by the redactor's rule
 * (`urlForRecord`): an http(s) URL's scheme, host and path as `url.full` (no userinfo, query or
 * fragment: a signed result URL keeps its signature in the query), with `server.address` and
 * `server.port`; any other URL by its scheme alone (`data:`, whose "path" is the file's bytes;
 * `blob:`).
 */
export function urlAttributes(url: string): { full: string; address?: string; port?: number } | undefined {
  if (!/^https?:\/\//i.test(url)) return { full: urlForRecord(url) };
  // Every request of a client shares its base URL: its origin is parsed once, not per request.
  const host = url.indexOf('//') + 2;
  const found = url.slice(host).search(/[/?#]/);
  const end = found < 0 ? -1 : host + found;
  const origin = end < 0 ? url : url.slice(0, end);
  let server = ORIGINS.get(origin);
  if (!server) {
    if (!URL.canParse(url)) return undefined;
    const parsed = new URL(origin);
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
    server = { origin: `${parsed.protocol}//${parsed.host}`, address: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port };
    if (ORIGINS.size >= 64) ORIGINS.clear();
    ORIGINS.set(origin, server);
  }
  const path = (end < 0 ? '' : url.slice(end).replace(/[?#].*$/s, '')) || '/';
  return { full: `${server.origin}${path}`, address: server.address, port: server.port };
}

/** Parsed origins (scheme, userinfo, host, port as written) of the URLs recently requested. */
const ORIGINS = new Map<string, { origin: string; address: string; port: number }>();
