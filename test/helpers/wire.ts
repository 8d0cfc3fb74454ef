import { http, HttpResponse, type JsonBodyType } from 'msw';
import { ValidationError } from 'omnimedia';
import { expect } from 'vitest';
import type { SetupServer } from 'msw/node';
import { BASE_URL } from './msw.ts';

/** One request as it reached the wire. */
export interface SeenRequest {
  method: string;
  /** The path as sent, still percent-encoded. */
  path: string;
  headers: Headers;
  /** The raw body text ('' for none). */
  text: string;
  /** The body as FormData, for multipart requests. */
  form?: FormData;
}

type Reply = Response | (() => Response | Promise<Response>);

/**
 * Answer `method path` with the replies in order (the last one repeats) and record every
 * request that arrives. `path` is relative to BASE_URL and may use MSW's `:param` syntax.
 */
export function recordRoute(
  server: SetupServer,
  method: 'get' | 'post',
  path: string,
  ...replies: Reply[]
): SeenRequest[] {
  const seen: SeenRequest[] = [];
  server.use(
    http[method](`${BASE_URL}${path}`, async ({ request }) => {
      const copy = request.clone();
      const isMultipart = request.headers.get('content-type')?.startsWith('multipart/form-data') ?? false;
      seen.push({
        method: request.method,
        path: new URL(request.url).pathname,
        headers: request.headers,
        text: isMultipart ? '' : await request.text(),
        ...(isMultipart ? { form: await copy.formData() } : {}),
      });
      const reply = replies[Math.min(seen.length - 1, replies.length - 1)];
      if (!reply) throw new Error('recordRoute: no reply given');
      return typeof reply === 'function' ? reply() : reply.clone();
    }),
  );
  return seen;
}

/** Count every request to the service, whatever its path: for "no request was sent" checks. */
export function countAllRequests(server: SetupServer): { readonly count: number } {
  const counter = { count: 0 };
  server.use(
    http.all(`${BASE_URL}/*`, () => {
      counter.count++;
      return HttpResponse.json({ error: 'this test expected no request' }, { status: 500 });
    }),
  );
  return counter;
}

export const json = (body: JsonBodyType, status = 200, headers?: Record<string, string>) =>
  HttpResponse.json(body, { status, ...(headers ? { headers } : {}) });

export const SUBMISSION = { task_id: 'task_img_1', status: 'pending', model: 'omni-image', created_at: 1_700_000_000 };
export const VIDEO_SUBMISSION = {
  task_id: 'task_vid_1',
  status: 'pending',
  model: 'omni_flash',
  normalized_model: 'omni_flash_720p_10s',
  operation: 'video_generation',
  media_type: 'video',
  created_at: 1_700_000_000,
};

/** Run `call`, expect a ValidationError and that nothing reached the service. */
export async function expectRejectedLocally(server: SetupServer, call: () => Promise<unknown>): Promise<ValidationError> {
  const requests = countAllRequests(server);
  const error = await call().then(
    () => {
      throw new Error('expected a ValidationError');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect(requests.count).toBe(0);
  return error as ValidationError;
}
