// The real client against the mock on a real local HTTP server, with a real callback
// receiver: every byte crosses loopback sockets. Phases are a few ms long, so real timers are
// fine here; nothing asserts on time.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OmniMedia, type TaskResult } from 'omnimedia';
import { startMockServer, type MockServer } from 'omnimedia/testing';
import { fixture, photo } from '../testing/mock-helpers.ts';

let server: MockServer;
let receiver: Server;
let callbackUrl: string;
const callbacks: TaskResult[] = [];
let onCallback: ((task: TaskResult) => void) | undefined;
const fast = { initialDelay: 20, interval: 20, maxInterval: 40 };

beforeAll(async () => {
  server = await startMockServer({ durations: { pending: 10, image: 30, imageEdit: 30, video: 50, videoEdit: 50 } });
  receiver = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const task = JSON.parse(text) as TaskResult;
      callbacks.push(task);
      onCallback?.(task);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callbacks`;
});

afterAll(async () => {
  await server.close();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

describe('SDK ↔ mock over HTTP (startMockServer)', () => {
  it('runs the user story: upload, edit, video from images, callback, downloads', async () => {
    const client = new OmniMedia({ apiKey: 'sk-local', baseURL: server.url, logLevel: 'off' });
    const upload = await client.uploads.image(photo());
    expect(upload.url.startsWith(server.url)).toBe(true);

    const edited = await client.images.edit({ model: 'omni-image', prompt: 'night', image: upload, size: '1024x1024' }).wait(fast);
    expect(edited.status).toBe('completed');
    const png = await fetch(edited.data![0]!.url);
    expect(png.headers.get('content-type')).toBe('image/png');

    const callbackArrived = new Promise<TaskResult>((resolve) => (onCallback = resolve));
    const submission = client.videos.generate({ prompt: 'the photo comes alive', images: [upload], seconds: 4, callback_url: callbackUrl });
    const video = await submission.wait(fast);
    const callback = await callbackArrived;
    expect(callback).toEqual(await client.tasks.retrieve(video.task_id));
    expect(callback).toMatchObject({ task_id: (await submission).task_id, status: 'completed', normalized_model: 'omni_flash_components_720p_4s' });

    const mp4 = new Uint8Array(await (await fetch(video.data![0]!.url)).arrayBuffer());
    expect(String.fromCharCode(...mp4.subarray(4, 8))).toBe('ftyp');
  });

  it('uploads a video and edits it', async () => {
    const client = new OmniMedia({ apiKey: 'sk-local', baseURL: server.url, logLevel: 'off' });
    const clip = await client.uploads.video(fixture('tiny.webm'));
    const edited = await client.videos.edit({ prompt: 'snow', input_video: clip.upload_id, resolution: '4K' }).wait(fast);
    expect(edited).toMatchObject({ status: 'completed', normalized_model: 'omni_flash_edit_4k' });
  });

  it('a client without a key gets its local AuthenticationError; the raw request gets 401', async () => {
    const keyless = new OmniMedia({ baseURL: server.url, apiKey: '', logLevel: 'off' });
    await expect(keyless.images.generate({ model: 'm', prompt: 'p' })).rejects.toMatchObject({ name: 'AuthenticationError' });
    const raw = await fetch(`${server.url}/v1/images/generations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(raw.status).toBe(401);
  });
});
