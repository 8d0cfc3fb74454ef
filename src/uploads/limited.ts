import { ValidationError } from '../errors.ts';
import type { BodyOptions } from './body.ts';
import { tooLargeMessage, type PreparedFile } from './inputs.ts';

/** The file's bytes with the running count checked against the limit; errors at the limit. */
export function limited(file: PreparedFile, content: ReadableStream<Uint8Array>, options: BodyOptions): ReadableStream<Uint8Array> {
  const reader = content.getReader();
  const { maxBytes } = file.rule;
  const total = file.source.size;
  let loaded = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        loaded += value.byteLength;
        if (loaded > maxBytes) {
          const error = new ValidationError(
            [{ path: file.field, message: tooLargeMessage(file.rule, `the stream passed it (${loaded.toLocaleString('en-US')} bytes read)`) }],
            `${file.rule.kind} upload`,
          );
          options.onTooLarge(error);
          await reader.cancel(error).catch(() => {});
          return controller.error(error);
        }
        controller.enqueue(value);
        options.onProgress?.({ loaded, total });
      },
      cancel: (reason) => reader.cancel(reason),
    },
    // Pull only when fetch asks for more: the socket's backpressure reaches the file.
    { highWaterMark: 0 },
  );
}
