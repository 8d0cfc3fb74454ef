import { readFileSync } from 'node:fs';
import type { MockService } from 'omnimedia/testing';

export const KEY = 'sk-mock-test';
export const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/${name}`, import.meta.url)));
export const photo = () => new Uint8Array(readFileSync(new URL('../../examples/assets/photo.png', import.meta.url)));

/** A JSON submission to the mock's handler, with the key unless `auth: false`. */
export function post(mock: MockService, path: string, body: unknown, options: { auth?: boolean | string } = {}): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.auth !== false) headers.authorization = typeof options.auth === 'string' ? options.auth : `Bearer ${KEY}`;
  return mock.handle(new Request(`${mock.baseURL}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }));
}

/** A multipart upload of `bytes` (as field `file`) to the mock's handler. */
export function upload(
  mock: MockService,
  kind: 'images' | 'videos',
  bytes: Uint8Array | undefined,
  options: { auth?: boolean; name?: string; type?: string; extra?: (form: FormData) => void } = {},
): Promise<Response> {
  const form = new FormData();
  if (bytes) form.append('file', new File([bytes as Uint8Array<ArrayBuffer>], options.name ?? 'file.bin', { type: options.type ?? 'application/octet-stream' }));
  options.extra?.(form);
  const headers: Record<string, string> = options.auth === false ? {} : { authorization: `Bearer ${KEY}` };
  return mock.handle(new Request(`${mock.baseURL}/v1/uploads/${kind}`, { method: 'POST', headers, body: form }));
}

export function get(mock: MockService, pathOrUrl: string, headers: Record<string, string> = {}): Promise<Response> {
  const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${mock.baseURL}${pathOrUrl}`;
  return mock.handle(new Request(url, { headers }));
}

/** Upload the example photo and return its record. */
export async function uploadPhoto(mock: MockService): Promise<{ url: string; [k: string]: unknown }> {
  const response = await upload(mock, 'images', photo(), { name: 'photo.png' });
  if (response.status !== 200) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as { url: string };
}

export async function uploadVideo(mock: MockService): Promise<{ upload_id: string; [k: string]: unknown }> {
  const response = await upload(mock, 'videos', fixture('tiny.webm'), { name: 'clip.webm' });
  if (response.status !== 200) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as { upload_id: string };
}

export const imageParts = (...urls: string[]) => [
  { role: 'user', content: [...urls.map((url) => ({ type: 'image_url', image_url: { url } })), { type: 'text', text: 'make it move' }] },
];
