// A callback body that stalls must not hold a socket for Node's default 300 s: the handlers
// have a read timeout of their own (`readTimeout`), answer 408 and close the connection.
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OmniMedia, ValidationError } from 'omnimedia';

const servers: Server[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const client = () => new OmniMedia({ baseURL: 'http://127.0.0.1:9', logLevel: 'off' });

/** A sender that declares 1,000 bytes, sends 10, and stalls; resolves with what came back. */
function stalledSender(port: number): { socket: Socket; answer: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  socket.write('POST /cb HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"task_id"');
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  const answer = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
  return { socket, answer };
}

describe('callbacks.nodeHandler: readTimeout', () => {
  it('200 stalled senders are answered 408 and every socket is closed at the read timeout', async () => {
    const onTask = vi.fn();
    const server = createServer(client().callbacks.nodeHandler(onTask, { readTimeout: 300 }));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const senders = Array.from({ length: 200 }, () => stalledSender(port));
    const answers = await Promise.all(senders.map((s) => s.answer));
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    const open = await new Promise<number>((resolve, reject) => server.getConnections((error, n) => (error ? reject(error) : resolve(n))));
    expect(open).toBe(0);
    expect(onTask).not.toHaveBeenCalled();
  });

  it('is checked: a non-positive readTimeout is a ValidationError naming it', () => {
    expect(() => client().callbacks.nodeHandler(() => {}, { readTimeout: 0 })).toThrow(ValidationError);
    expect(() => client().callbacks.handler(() => {}, { readTimeout: Number.NaN })).toThrow(/readTimeout/);
  });
});

describe('callbacks.handler: readTimeout', () => {
  it('a Request whose body never ends is answered 408 after the default 10 s', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const handle = client().callbacks.handler(() => {});
    const body = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode('{"task_id"')) });
    const answer = handle(new Request('http://app.test/cb', { method: 'POST', body, duplex: 'half' } as RequestInit));
    let settled = false;
    void answer.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(9_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const response = await answer;
    expect(response.status).toBe(408);
    expect(response.headers.get('connection')).toBe('close');
  });
});
