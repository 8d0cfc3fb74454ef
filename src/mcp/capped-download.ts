import { ValidationError, type OmniMedia } from 'omnimedia';

const MiB = 1024 * 1024;

/** A size in MiB for a message: `64 MiB`, `1.5 MiB`. */
export const mib = (bytes: number): string => `${Number((bytes / MiB).toFixed(1))} MiB`;

/** A download refused for its size: from its Content-Length (`size`), or once it streamed past `limit`. */
export class TooLarge extends Error {
  override readonly name = 'TooLarge';
  constructor(
    readonly limit: number,
    readonly size: number | undefined,
  ) {
    super(size === undefined ? `is over ${mib(limit)}` : `is ${mib(size)}`);
  }

  /** As a `ValidationError` of `field`: the size and the limit. */
  toValidationError(field: string, context: string): ValidationError {
    return new ValidationError([{ path: field, message: `${this.message}; the service takes files of at most ${mib(this.limit)}` }], context);
  }
}

/**
 * The bytes at `url`, through the client's downloader, never more than `maxBytes` in memory:
 * refused (`TooLarge`) from the Content-Length before the body is read, and as soon as the body
 * streams past the limit. A URL an agent or a service chooses cannot make the server hold more.
 */
export async function downloadAtMost(client: OmniMedia, url: string, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  const refuse = new AbortController();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const sink = new WritableStream<Uint8Array>({
    write(chunk) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new TooLarge(maxBytes, undefined);
      chunks.push(chunk);
    },
  });
  try {
    await client.files.download(url, {
      to: sink,
      signal: AbortSignal.any([signal, refuse.signal]),
      onProgress: ({ total }) => {
        if (total !== undefined && total > maxBytes && !refuse.signal.aborted) refuse.abort(new TooLarge(maxBytes, total));
      },
    });
  } catch (error) {
    if (refuse.signal.aborted) throw refuse.signal.reason;
    if (size > maxBytes) throw new TooLarge(maxBytes, undefined);
    throw error;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
