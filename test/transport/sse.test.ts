// The event stream parser against the HTML standard's rules, fed whole and cut at every byte.
import { describe, expect, it } from 'vitest';
import { sseParser, type ServerSentEvent } from '../../src/transport/sse.ts';

function parse(chunks: string[]): ServerSentEvent[] {
  const events: ServerSentEvent[] = [];
  const feed = sseParser((event) => events.push(event));
  for (const chunk of chunks) feed(chunk);
  return events;
}

/** Every way of cutting `text` in two. */
const cuts = (text: string) => Array.from({ length: text.length + 1 }, (_, at) => [text.slice(0, at), text.slice(at)]);

describe('sseParser', () => {
  it('reads the proxy\u2019s events: type, id, data; comments ignored', () => {
    const text = ': open\n\nevent: task\nid: 1\ndata: {"task_id":"t1","status":"pending"}\n\n: ping\n\nevent: error\ndata: {"status":404}\n\n';
    expect(parse([text])).toEqual([
      { event: 'task', data: '{"task_id":"t1","status":"pending"}', id: '1' },
      { event: 'error', data: '{"status":404}', id: '1' },
    ]);
  });

  it('gives the same events however the text is cut into chunks', () => {
    const text = 'event: task\r\nid: 7\r\ndata: a\r\ndata: b\r\n\r\nevent: task\rid: 8\rdata: c\r\rdata:d\n\n';
    const whole = parse([text]);
    expect(whole).toEqual([
      { event: 'task', data: 'a\nb', id: '7' },
      { event: 'task', data: 'c', id: '8' },
      { event: 'message', data: 'd', id: '8' },
    ]);
    for (const pieces of cuts(text)) expect(parse(pieces)).toEqual(whole);
    expect(parse([...text])).toEqual(whole);
  });

  it('follows the standard\u2019s corner cases: a field without a colon, one space dropped, no data no event, an id with NUL ignored', () => {
    expect(parse(['data\n\n'])).toEqual([{ event: 'message', data: '', id: undefined }]);
    expect(parse(['data:  two spaces\n\n'])).toEqual([{ event: 'message', data: ' two spaces', id: undefined }]);
    expect(parse(['event: task\nid: 3\n\n'])).toEqual([]);
    expect(parse(['id: 1\n\nid: a\0b\ndata: x\n\n'])).toEqual([{ event: 'message', data: 'x', id: '1' }]);
    expect(parse(['data: unfinished'])).toEqual([]);
  });
});
