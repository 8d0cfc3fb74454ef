// What an agent's URLs and a service's results may cost the server: a result or an upload_file
// URL too large is refused from its Content-Length before its body is read, and while it streams
// without one; the images embedded in one answer are bounded in number and bytes (the rest are
// links); a plain call ends by waitMs, rendering included (what is not rendered then is a link).
// Real sockets: the bytes the service managed to write before the server left are the proof.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { json, mcpOn, serveBytes, startHostileService, taskBody, type HostileService } from './hostile-service.ts';

const MiB = 1024 * 1024;
const PNG = new Uint8Array(await readFile(fileURLToPath(new URL('../fixtures/tiny.png', import.meta.url))));
let service: HostileService;
let server: Awaited<ReturnType<typeof mcpOn>> | undefined;
afterEach(async () => {
  await server?.close();
  await service?.close();
});

/** A service whose one task completes with `count` result URLs, served by `file`. */
function taskWithResults(count: number, file: (res: import('node:http').ServerResponse, index: number) => void) {
  const urls = Array.from({ length: count }, (_, i) => `${service.url}/files/${i}.png`);
  service.answer((request) => {
    if (request.method === 'POST') return json(request.res, 200, taskBody('task_results', 'pending'));
    if (request.path.startsWith('/v1/tasks/')) return json(request.res, 200, taskBody('task_results', 'completed', urls));
    const index = /\/files\/(\d+)\.png$/.exec(request.path)?.[1];
    if (index !== undefined) return file(request.res, Number(index));
    return 'hold';
  });
}

const generate = async (options: { waitMs?: number } = {}) => {
  server = await mcpOn(service, { server: { waitMs: options.waitMs ?? 60_000 } });
  const mcp = await server.connect();
  return (await mcp.callTool({ name: 'generate_image', arguments: { model: 'omni-image', prompt: 'a fox' } }, CallToolResultSchema, { timeout: 120_000 })) as CallToolResult;
};
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const blocks = (result: CallToolResult, type: string) => result.content.filter((c) => c.type === type);

describe('a result too large to embed', () => {
  it.each([
    ['with a Content-Length: refused before its body is read', true],
    ['without one: cut off as it streams past the cap', false],
  ])('%s', async (_what, contentLength) => {
    service = await startHostileService();
    const written: Promise<number>[] = [];
    taskWithResults(1, (res) => void written.push(serveBytes(res, 64 * MiB, PNG, { contentLength })));
    const result = await generate();
    expect(result.isError).toBeFalsy();
    expect(blocks(result, 'image')).toEqual([]);
    expect(blocks(result, 'resource_link')).toHaveLength(1);
    expect(textOf(result)).toContain('Image 1 is over 1 MiB: linked, not embedded.');
    // The socket's buffers hold a few MiB at most; the whole file would be 64.
    expect(await written[0]).toBeLessThanOrEqual(8 * MiB);
  }, 60_000);
});

describe('upload_file { url } of a file too large', () => {
  it('is refused from its Content-Length, its body unread', async () => {
    service = await startHostileService();
    let written: Promise<number> | undefined;
    service.answer((request) => {
      if (request.path === '/big.mp4') written = serveBytes(request.res, 64 * MiB, PNG, { contentType: 'video/mp4' });
      else return 'hold';
    });
    server = await mcpOn(service);
    const mcp = await server.connect();
    const result = (await mcp.callTool({ name: 'upload_file', arguments: { url: `${service.url}/big.mp4` } }, CallToolResultSchema, { timeout: 60_000 })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('url: is 64 MiB; the service takes files of at most 50 MiB');
    expect(await written).toBeLessThanOrEqual(8 * MiB);
    expect(service.received.filter((r) => r.path.startsWith('/v1/uploads'))).toEqual([]);
  }, 60_000);
});

describe('many results', () => {
  it('100 images for one task: at most 4 embedded (4 MiB in all), every one linked; one message of bounded size', async () => {
    service = await startHostileService();
    taskWithResults(100, (res) => void serveBytes(res, 300 * 1024, PNG));
    const result = await generate();
    expect(blocks(result, 'image')).toHaveLength(4);
    expect(blocks(result, 'resource_link')).toHaveLength(100);
    expect(textOf(result)).toContain('96 more images linked, not embedded');
    expect(JSON.stringify(result).length).toBeLessThan(8 * MiB);
  }, 60_000);
});

describe('a plain call ends by waitMs, rendering included', () => {
  it('results that never finish downloading: the call answers at waitMs with links, and says why nothing is embedded', async () => {
    service = await startHostileService();
    // Headers and the first bytes, then nothing: a download that would hold the call for ever.
    taskWithResults(4, (res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(PNG);
    });
    const result = await generate({ waitMs: 8_000 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ task_id: 'task_results', status: 'completed' });
    expect(blocks(result, 'resource_link')).toHaveLength(4);
    expect(blocks(result, 'image')).toEqual([]);
    expect(textOf(result)).toContain('not embedded: the call had to answer within its 8 s');
  }, 60_000);
});

describe('links', () => {
  it("only a result's http(s) URLs are resource links: a service's javascript: and file: URIs are not", async () => {
    service = await startHostileService();
    const urls = ['javascript:alert(1)', 'file:///etc/passwd'];
    service.answer((request) => {
      if (request.method === 'POST') return json(request.res, 200, taskBody('task_links', 'pending'));
      if (request.path.startsWith('/v1/tasks/')) return json(request.res, 200, taskBody('task_links', 'completed', [...urls, `${service.url}/files/0.png`]));
      if (request.path === '/files/0.png') return void serveBytes(request.res, PNG.length, PNG);
      return 'hold';
    });
    const result = await generate();
    expect(blocks(result, 'resource_link').map((link) => (link as { uri: string }).uri)).toEqual([`${service.url}/files/0.png`]);
    expect(textOf(result)).toContain('Results 1, 2: not an http(s) URL, not linked.');
  }, 60_000);
});
