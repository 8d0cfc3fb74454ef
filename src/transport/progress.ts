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
  loaded: number;
  total: number | undefined;
}
