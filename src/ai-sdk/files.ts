/**
 * The AI SDK's file parts (an image to edit, a reference image, a video to edit) as the
 * client's references: a URL is sent as it is (the service takes its own upload URLs), file
 * data becomes bytes that the client uploads first, checking type and size as it does for any
 * file.
 */
import type { Experimental_VideoModelV4File as VideoModelV4File, ImageModelV4File } from '@ai-sdk/provider';
import type { ValidationIssue } from 'omnimedia';
import { sniffMediaType } from 'omnimedia/schemas';

/** A file part of either model: the video model's `url` parts may name their media type. */
export type AiFile = ImageModelV4File | VideoModelV4File;

/** File data as bytes: base64 decoded by the platform's `atob`. An invalid string is an issue at `path`. */
function bytesOf(data: string | Uint8Array, path: string, issues: ValidationIssue[]): Uint8Array {
  if (typeof data !== 'string') return data;
  try {
    return Uint8Array.from(atob(data), (char) => char.charCodeAt(0));
  } catch {
    issues.push({ path, message: 'file data must be bytes or a base64 string' });
    return new Uint8Array();
  }
}

/** What the client takes where a reference goes: a URL string, or bytes to upload first. */
export function fileReference(file: AiFile, path: string, issues: ValidationIssue[]): string | Uint8Array {
  return file.type === 'url' ? file.url : bytesOf(file.data, path, issues);
}

/**
 * `video` when the part is a video: file data by its first bytes (as the client's uploads
 * judge it), else by its declared media type; a URL part only by its declared media type.
 */
export function fileKind(file: AiFile, reference: string | Uint8Array): 'image' | 'video' {
  const declared = 'mediaType' in file ? file.mediaType : undefined;
  const mediaType = typeof reference === 'string' ? declared : (sniffMediaType(reference)?.mediaType ?? declared);
  return mediaType?.startsWith('video/') ? 'video' : 'image';
}
