/**
 * The file inputs a caller may pass where a file goes: the input types of uploads and of the
 * reference fields (`image`, `mask`, `images`, `input_video`). Types and one plain class: no
 * zod, no I/O.
 */

/** The last segment of a path, for the name sent with a file. */
export function fileName(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}

/**
 * A file on disk, by path (Node, Deno, Bun). Made by `fileFromPath()`. Nothing is read
 * until the upload, and a retried upload opens the file again.
 *
 * @example
 * ```ts
 * const photo = fileFromPath('./photo.png');
 * await client.images.edit({ model: 'omni-image', prompt: 'make it night', image: photo });
 * ```
 */
export class FileFromPath {
  /** The path as given. */
  declare readonly path: string;
  /** The name sent with the upload: the path's last segment unless given. */
  declare readonly name: string;

  constructor(path: string, name?: string) {
    this.path = path;
    this.name = name ?? fileName(path);
  }
}

/**
 * A file to upload:
 * - a path string (Node, Deno, Bun) or `fileFromPath()`: read from disk as it is sent;
 * - a `Blob` or `File` (its `name` is the filename);
 * - bytes: `Uint8Array` (Node's byte buffers included) or `ArrayBuffer`;
 * - a web `ReadableStream`, a Node `Readable` or any async iterable of bytes: sent as it is
 *   read, size-checked on the way; one-shot, so such an upload is never retried;
 * - a fetch `Response` (e.g. `await fetch(url)`): its body is streamed through.
 *
 * @example
 * ```ts
 * await client.uploads.image('./photo.png');                  // a path (Node)
 * await client.uploads.image(input.files[0]);                // a File from <input type="file">
 * await client.uploads.image(new Uint8Array(await res.arrayBuffer()), { filename: 'a.png' });
 * ```
 */
export type Uploadable =
  | string
  | FileFromPath
  | Blob
  | Uint8Array
  | ArrayBuffer
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>
  | Response;

/**
 * A file object where a reference goes: uploaded first, then replaced by its URL or id.
 *
 * @example
 * ```ts
 * const image: FileInput = new Blob([bytes], { type: 'image/png' });
 * await client.images.edit({ model: 'omni-image', prompt: 'make it night', image });
 * ```
 */
export type FileInput = Exclude<Uploadable, string>;
