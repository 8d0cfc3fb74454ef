import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { ValidationError, type ImageUpload, type VideoUpload } from 'omnimedia';
import type { TransferProgress as TransferProgressEvent } from 'omnimedia/resources';
import { UsageError } from './args.ts';
import type { Context } from './context.ts';
import { formatBytes, formatDuration } from './format.ts';

async function fileSize(path: string): Promise<number | undefined> {
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() ? info.size : undefined;
}

const isHttpUrl = (text: string) => /^https?:\/\//i.test(text);

/**
 * Upload a local file through the SDK, with a progress line named after the file. The SDK's
 * file checks (type, size) report the file as `file`; `field` names the flag it came from.
 */
export async function uploadFile(ctx: Context, kind: 'image', path: string, size: number, field?: string): Promise<ImageUpload>;
export async function uploadFile(ctx: Context, kind: 'video', path: string, size: number, field?: string): Promise<VideoUpload>;
export async function uploadFile(
  ctx: Context,
  kind: 'image' | 'video',
  path: string,
  size: number,
  field = 'file',
): Promise<ImageUpload | VideoUpload> {
  const client = ctx.client();
  const bar = ctx.progress.transfer('uploading', basename(path), size);
  try {
    const options = { signal: ctx.signal, onProgress: ({ loaded, total }: TransferProgressEvent) => bar.update(loaded, total) };
    const record = kind === 'image' ? await client.uploads.image(path, options) : await client.uploads.video(path, options);
    ctx.progress.log(`uploaded ${basename(path)} (${formatBytes(size)}) in ${formatDuration(bar.elapsedMs)}`);
    return record;
  } catch (error) {
    if (error instanceof ValidationError && field !== 'file') {
      throw new ValidationError(
        error.issues.map((issue) => ({ path: field, message: `${path}: ${issue.message}` })),
        `${kind} upload`,
      );
    }
    throw error;
  } finally {
    bar.end();
  }
}

/**
 * `--image` and `--mask`: an existing file is uploaded first (several in parallel) and its
 * URL used; an http(s) URL is used as it is. Anything else is a typo worth stopping for.
 */
export async function imageUrls(ctx: Context, args: readonly string[], flag: string, field: string): Promise<string[]> {
  const sizes = await Promise.all(args.map(fileSize));
  args.forEach((arg, i) => {
    if (sizes[i] === undefined && !isHttpUrl(arg))
      throw new UsageError(`${flag}: "${arg}" is neither a file nor an http(s) URL of an uploaded image`, flag);
  });
  return Promise.all(
    args.map(async (arg, i) => {
      const size = sizes[i];
      return size === undefined ? arg : (await uploadFile(ctx, 'image', arg, size, field)).url;
    }),
  );
}

/** `--video`: an existing file is uploaded first; anything else is taken as an `upload_id`. */
export async function videoUploadId(ctx: Context, arg: string, flag: string, field: string): Promise<string> {
  const size = await fileSize(arg);
  if (size !== undefined) return (await uploadFile(ctx, 'video', arg, size, field)).upload_id;
  // An upload id has no slashes or extension; this was meant as a file.
  if (/[\\/]|\.(mp4|mov|webm|mkv)$/i.test(arg)) throw new UsageError(`${flag}: no such file "${arg}"`, flag);
  return arg;
}

/** The file size for `uploads image|video FILE`, or a usage error naming the argument. */
export async function requireFile(path: string): Promise<number> {
  const size = await fileSize(path);
  if (size === undefined) throw new UsageError(`FILE: no such file "${path}"`, 'FILE');
  return size;
}
