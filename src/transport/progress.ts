/**
 * Bytes moved so far; `total` is `undefined` when the size is not known in advance.
 *
 * @example
 * ```ts
 * await client.uploads.video('./clip.mp4', {
 *   onProgress: ({ loaded, total }) => console.log(total ? `${Math.round((100 * loaded) / total)}%` : `${loaded} bytes`),
 * });
 * ```
 */
export interface TransferProgress {
  /** Bytes moved so far. */
  loaded: number;
  /** All the bytes, when known in advance (a file's size, a `Content-Length`); else `undefined`. */
  total: number | undefined;
}
