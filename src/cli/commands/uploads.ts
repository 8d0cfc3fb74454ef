import { CONNECTION_OPTIONS, OUTPUT_OPTIONS } from '../args.ts';
import { EXIT } from '../exit.ts';
import { describe } from '../output.ts';
import { requireFile, uploadFile } from '../references.ts';
import type { Command } from './command.ts';

function uploadCommand(kind: 'image' | 'video'): Command {
  const image = kind === 'image';
  return {
    flags: { file: 'FILE' },
    spec: {
      name: `uploads ${kind}`,
      summary: image
        ? 'Upload a reference image (PNG, JPEG or WebP, at most 25 MiB). Prints its url, valid 24 hours.'
        : 'Upload a source video (MP4, MOV or WebM, at most 50 MiB). Prints its upload_id, valid 24 hours.',
      usage: 'FILE [options]',
      positionals: ['FILE'],
      options: { ...OUTPUT_OPTIONS, ...CONNECTION_OPTIONS },
      notes: ['The type is read from the file\'s first bytes, not its name; a wrong type or size fails before any byte is sent.'],
      examples: image
        ? ['omnimedia uploads image photo.png', 'omnimedia uploads image photo.png --json | jq -r .url']
        : ['omnimedia uploads video clip.mp4', 'omnimedia uploads video clip.mp4 --json | jq -r .upload_id'],
    },
    async run(ctx, args) {
      const path = args.positionals[0] ?? '';
      const size = await requireFile(path);
      const record = image ? await uploadFile(ctx, 'image', path, size) : await uploadFile(ctx, 'video', path, size);
      ctx.progress.stop();
      ctx.output.result(record, () => describe(record));
      return EXIT.ok;
    },
  };
}

export const uploadsImage = uploadCommand('image');
export const uploadsVideo = uploadCommand('video');
