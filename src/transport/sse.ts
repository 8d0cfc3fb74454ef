/**
 * Server-Sent Events, read as the HTML standard's event stream parser does (its "Interpreting an
 * event stream"): lines end with CRLF, LF or CR (a CR at the end of one chunk and an LF at the
 * start of the next are one end), `field: value` with one leading space dropped, comment lines
 * (`:`) ignored, `data` lines joined with LF, an event dispatched at a blank line when it has
 * data, `id` kept unless it holds NUL. Ours rather than eventsource-parser: its current major
 * needs Node >= 22.12 (ours run from 22.0) and would be a second runtime dependency; this is
 * 0.3 KB of the page's bundle (waiting/task-stream.ts reads the proxy's task events with it).
 */

/** One event: its type (`message` when none was given), its data, and the last event id so far. */
export interface ServerSentEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * A parser fed with decoded text as it arrives; `onEvent` is called for each whole event.
 * Returns the function to feed it.
 */
export function sseParser(onEvent: (event: ServerSentEvent) => void): (text: string) => void {
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  /** The last chunk ended with CR: an LF first in the next one ends nothing more. */
  let afterCR = false;
  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) onEvent({ event: event || 'message', data: data.join('\n'), id });
      data = [];
      event = '';
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
  };
  return (text) => {
    if (afterCR && text.startsWith('\n')) text = text.slice(1);
    afterCR = false;
    buffer += text;
    for (let end = buffer.search(/[\r\n]/); end !== -1; end = buffer.search(/[\r\n]/)) {
      const ending = buffer[end] === '\r' && buffer[end + 1] === '\n' ? 2 : 1;
      // A CR last in the buffer may be the first half of a CRLF split across chunks.
      if (buffer[end] === '\r' && end === buffer.length - 1) afterCR = true;
      line(buffer.slice(0, end));
      buffer = buffer.slice(end + ending);
    }
  };
}
