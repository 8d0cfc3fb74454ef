/**
 * The proxy's routing: the spec's seven endpoints, and a task's events (DESIGN 12), nothing else. A request target is matched
 * as it came off the wire (the raw target of `nodeHandler`; a fetch `Request`'s URL for
 * `handler`), before anything decodes or normalises it, and anything that could read two ways
 * is refused: the upstream path is then rebuilt from this table and the checked task id alone.
 */
import { taskIdProblem } from '../schemas/task-id.ts';
import type { ProxyOperation } from './options.ts';

const POSTS: Readonly<Record<string, ProxyOperation>> = {
  'v1/images/generations': 'image_generation',
  'v1/images/edits': 'image_edit',
  'v1/video/generate': 'video_generation',
  'v1/video/edits': 'video_edit',
  'v1/uploads/images': 'image_upload',
  'v1/uploads/videos': 'video_upload',
};
const TASKS = 'v1/tasks/';
const EVENTS = '/events';

/** A matched endpoint. */
export interface Route {
  operation: ProxyOperation;
  /** The upstream path, relative to the base URL: from the table, and the task id re-encoded. */
  path: string;
  method: 'GET' | 'POST';
  /** An `OPTIONS` request for the endpoint: a CORS preflight. */
  preflight: boolean;
  taskId?: string;
}

/** A target the proxy refuses, with the status and words of its answer. */
export interface RouteRefusal {
  status: 400 | 404 | 405;
  code: string;
  message: string;
  /** For 405: the method the endpoint takes. */
  allow?: string;
}

/**
 * Why a raw target (path and query, as sent) could mean two things, or `undefined` when it
 * cannot. Everything a server, a framework or the service might decode or normalise
 * differently is refused: encoded dots, slashes, backslashes, NUL and percent signs, dot
 * segments, empty segments, backslashes, controls, non-ASCII, a fragment, a query.
 */
function ambiguity(target: string): string | undefined {
  if (/[^\x21-\x7e]/.test(target)) return 'a control character, a space or a non-ASCII character';
  if (target.includes('\\')) return 'a backslash';
  if (/%(?:2e|2f|5c|00|25)/i.test(target)) return 'an encoded dot, slash, backslash, NUL or percent sign';
  if (/%(?![0-9a-f]{2})/i.test(target)) return 'a malformed percent-encoding';
  if (target.includes('//')) return 'an empty path segment (//)';
  if (/\/\.{1,2}(?:[/?#]|$)/.test(target)) return 'a dot segment (/./ or /../)';
  if (target.includes('#')) return 'a fragment';
  if (target.includes('?')) return 'a query string (the endpoints take none)';
  return undefined;
}

/**
 * Why a decoded task id could be read as more than one path segment: whitespace, a slash, a
 * backslash, %, ? or #, or only dots; a ';' (a server that drops path parameters after decoding,
 * as Spring's UrlPathHelper does, reads '..;x' as '..'); also once Unicode-normalised (NFKC),
 * since a server that normalises (or maps to ASCII by "best fit") reads '\uff0f' as '/' and
 * '\uff0e\uff0e' as '..'.
 */
function readsAsPathSyntax(taskId: string): string | undefined {
  for (const form of new Set([taskId, taskId.normalize('NFKC')])) {
    if (/[\s\\/%;?#]/.test(form)) return 'must not hold whitespace, a slash, a backslash, %, ;, ? or # (nor a Unicode form of one)';
    if (form === '.' || form === '..') return 'must not read as "." or ".."';
  }
  return undefined;
}

const refusal = (status: RouteRefusal['status'], code: string, message: string, allow?: string): RouteRefusal =>
  allow ? { status, code, message, allow } : { status, code, message };

/**
 * The endpoint a request names, a refusal, or `undefined` when the target is not under
 * `basePath` at all (another route of the app). `basePath` is `''` for the root, else starts
 * with `/` and has no trailing one.
 */
export function routeOf(method: string, target: string, basePath: string): Route | RouteRefusal | undefined {
  if (!target.startsWith('/'))
    return refusal(400, 'bad_target', 'the request target must be a path (an absolute-form or authority-form target is refused)');
  if (!(target === basePath || target.startsWith(`${basePath}/`) || target.startsWith(`${basePath}?`))) return undefined;
  // Mounted at the root, it owns /v1/ only: the app's other routes go on (to `next`).
  if (basePath === '' && !/^\/v1(?:[/?#]|$)/.test(target)) return undefined;
  const problem = ambiguity(target);
  if (problem) return refusal(400, 'ambiguous_target', `the request target holds ${problem}: refused rather than guessed at`);
  const rest = target.slice(basePath.length + 1);
  const preflight = method === 'OPTIONS';
  // An own key only: `POSTS['constructor']` is Object, which is no endpoint.
  const post = Object.hasOwn(POSTS, rest) ? POSTS[rest] : undefined;
  if (post) {
    if (method !== 'POST' && !preflight) return refusal(405, 'method_not_allowed', `${method} is not allowed here: POST only`, 'POST, OPTIONS');
    return { operation: post, path: rest, method: 'POST', preflight };
  }
  // A task's read, or its events (Server-Sent Events): v1/tasks/{id}[/events].
  // (A task whose id is `events` is still read at v1/tasks/events.)
  const events = rest.length > TASKS.length + EVENTS.length && rest.endsWith(EVENTS);
  const idPart = rest.slice(TASKS.length, events ? -EVENTS.length : undefined);
  if (rest.startsWith(TASKS) && !idPart.includes('/')) {
    if (method !== 'GET' && !preflight) return refusal(405, 'method_not_allowed', `${method} is not allowed here: GET only`, 'GET, OPTIONS');
    let taskId: string;
    try {
      taskId = decodeURIComponent(idPart);
    } catch {
      return refusal(400, 'invalid_task_id', 'task_id: its percent-encoding is not UTF-8');
    }
    const problem = taskIdProblem(taskId) ?? readsAsPathSyntax(taskId);
    if (problem) return refusal(400, 'invalid_task_id', `task_id: ${problem}`);
    // The events' upstream is the task query: the proxy's watch reads the task, never a stream.
    return { operation: events ? 'task_events' : 'task_query', path: `${TASKS}${encodeURIComponent(taskId)}`, method: 'GET', preflight, taskId };
  }
  return refusal(404, 'not_found', 'not an endpoint of this proxy: it forwards only the service\u2019s endpoints under /v1');
}

/** A route, as opposed to a refusal. */
export function isRoute(value: Route | RouteRefusal): value is Route {
  return 'operation' in value;
}
