// startMockServer: the mock on a real HTTP server on loopback.
import { afterEach, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { KEY, photo } from './mock-helpers.ts';

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('startMockServer', () => {
  it("leaves the process's Request and Response alone (a user's MSW and instanceof checks keep the platform's classes)", async () => {
    const { Request: request, Response: response } = globalThis;
    server = await startMockServer({ durations: { pending: 0, image: 0 } });
    expect((await fetch(`${server.url}/v1/tasks/none`)).status).toBe(404);
    // @hono/node-server puts its own lighter classes on the global object unless told not to:
    // then MSW's `HttpResponse.error()` threw ERR_HTTP_INVALID_STATUS_CODE in the user's process.
    expect(globalThis.Request).toBe(request);
    expect(globalThis.Response).toBe(response);
    expect(Response.error().type).toBe('error');
  });

  it('listens on a free loopback port and answers like the handler', async () => {
    server = await startMockServer({ durations: { pending: 0, image: 0 } });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.mock.baseURL).toBe(server.url);
    const submitted = await fetch(`${server.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', prompt: 'p', size: '1024x640' }),
    });
    expect(submitted.status).toBe(200);
    const { task_id } = (await submitted.json()) as { task_id: string };
    const task = (await (await fetch(`${server.url}/v1/tasks/${task_id}`)).json()) as { status: string; data: { url: string }[] };
    expect(task.status).toBe('completed');
    // Result URLs point at the server itself and serve a PNG.
    expect(task.data[0]!.url.startsWith(`${server.url}/files/results/`)).toBe(true);
    const png = await fetch(task.data[0]!.url);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await png.arrayBuffer()).subarray(1, 4)).toEqual(new Uint8Array([0x50, 0x4e, 0x47]));
  });

  it('takes multipart uploads and answers 401 without a key', async () => {
    server = await startMockServer();
    const form = new FormData();
    form.append('file', new File([photo()], 'photo.png', { type: 'image/png' }));
    const denied = await fetch(`${server.url}/v1/uploads/images`, { method: 'POST', body: form });
    expect(denied.status).toBe(401);
    const ok = await fetch(`${server.url}/v1/uploads/images`, { method: 'POST', body: form, headers: { authorization: `Bearer ${KEY}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ width: 512, height: 512, content_type: 'image/png', url: expect.stringContaining(server.url) });
  });

  it('answers a browser preflight with CORS headers over real HTTP', async () => {
    server = await startMockServer();
    const response = await fetch(`${server.url}/v1/uploads/images`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')).toBe('authorization,content-type');
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('serves a given mock on a given port, and close() frees the port', async () => {
    const first = await startMockServer();
    const port = first.port;
    await first.close();
    server = await startMockServer({ port, mock: first.mock });
    expect(server.port).toBe(port);
    expect(server.mock).toBe(first.mock);
    server.mock.forceStatus(402);
    const response = await fetch(`${server.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(402);
  });

  it('rejects when the port is taken', async () => {
    server = await startMockServer();
    await expect(startMockServer({ port: server.port })).rejects.toThrow(/EADDRINUSE/);
  });
});
