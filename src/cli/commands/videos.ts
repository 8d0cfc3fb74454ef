import type { VideoEditParams, VideoGenerateParams } from 'omnimedia';
import { CONNECTION_OPTIONS, OUTPUT_OPTIONS, SUBMIT_OPTIONS, listValue, stringValue, type OptionSpec } from '../args.ts';
import { imageUrls, videoUploadId } from '../references.ts';
import { submitTask, waitFlags } from '../wait.ts';
import { defined, type Command } from './command.ts';

const SHARED: Record<string, OptionSpec> = {
  resolution: { type: 'string', short: 'r', value: 'RES', description: '720p (default), 1080p or 4K' },
  'aspect-ratio': { type: 'string', short: 'a', value: 'RATIO', description: '16:9 or 9:16' },
  'callback-url': { type: 'string', value: 'URL', description: 'The service POSTs the finished task here' },
};

const FLAGS = { images: '--image', input_video: '--video', messages: '--prompt' };

export const videosGenerate: Command = {
  flags: FLAGS,
  spec: {
    name: 'videos generate',
    summary: 'Generate a video from a prompt, or from up to 3 images and a prompt (POST /v1/video/generate).',
    usage: '--prompt TEXT [--image FILE_OR_URL ...] [options]',
    options: {
      model: {
        type: 'string',
        short: 'm',
        value: 'MODEL',
        description: 'omni_flash (text to video) or omni_flash_components (image to video); default: chosen from --image',
      },
      prompt: { type: 'string', short: 'p', value: 'TEXT', description: 'What the video shows (required)' },
      image: {
        type: 'string',
        short: 'i',
        multiple: true,
        value: 'FILE_OR_URL',
        description: 'Reference image, at most 3: a file (uploaded first) or an upload URL',
      },
      seconds: { type: 'string', value: 'S', description: '4, 6, 8 or 10 (default 10)' },
      ...SHARED,
      ...SUBMIT_OPTIONS,
      ...OUTPUT_OPTIONS,
      ...CONNECTION_OPTIONS,
    },
    examples: [
      'omnimedia videos generate -p "a paper boat on a river" --seconds 6 --wait',
      'omnimedia videos generate -p "the fox starts running" -i fox.png -r 1080p -a 16:9 --wait --out ./videos',
      'omnimedia videos generate -p "a fox" --json | jq -r .task_id',
    ],
  },
  async run(ctx) {
    const flags = await waitFlags(ctx);
    const images = await imageUrls(ctx, listValue(ctx.values, 'image'), '--image', 'images');
    const params = defined({
      model: stringValue(ctx.values, 'model'),
      prompt: stringValue(ctx.values, 'prompt'),
      images: images.length > 0 ? images : undefined,
      seconds: stringValue(ctx.values, 'seconds'),
      resolution: stringValue(ctx.values, 'resolution'),
      aspect_ratio: stringValue(ctx.values, 'aspect-ratio'),
      callback_url: stringValue(ctx.values, 'callback-url'),
    }) as unknown as VideoGenerateParams;
    return submitTask(ctx, ctx.client().videos.generate(params, { signal: ctx.signal }), flags);
  },
};

export const videosEdit: Command = {
  flags: FLAGS,
  spec: {
    name: 'videos edit',
    summary: 'Edit a video (POST /v1/video/edits). A local file is uploaded first; anything else is an upload_id.',
    usage: '--prompt TEXT --video FILE_OR_ID [options]',
    options: {
      model: { type: 'string', short: 'm', value: 'MODEL', description: 'Default omni_flash_edit' },
      prompt: { type: 'string', short: 'p', value: 'TEXT', description: 'The editing instruction (required)' },
      video: {
        type: 'string',
        short: 'v',
        value: 'FILE_OR_ID',
        description: 'Source video: an MP4/MOV/WebM file (uploaded first) or an upload_id (required)',
      },
      ...SHARED,
      ...SUBMIT_OPTIONS,
      ...OUTPUT_OPTIONS,
      ...CONNECTION_OPTIONS,
    },
    notes: ['Video edits take no --seconds: the length follows the source video.'],
    examples: [
      'omnimedia videos edit -p "make it snow" --video clip.mp4 --wait --out .',
      'omnimedia videos edit -p "make it snow" --video upl_123 -r 1080p --json',
    ],
  },
  async run(ctx) {
    const flags = await waitFlags(ctx);
    const video = stringValue(ctx.values, 'video');
    const params = defined({
      model: stringValue(ctx.values, 'model'),
      prompt: stringValue(ctx.values, 'prompt'),
      input_video: video === undefined ? undefined : await videoUploadId(ctx, video, '--video', 'input_video'),
      resolution: stringValue(ctx.values, 'resolution'),
      aspect_ratio: stringValue(ctx.values, 'aspect-ratio'),
      callback_url: stringValue(ctx.values, 'callback-url'),
    }) as unknown as VideoEditParams;
    return submitTask(ctx, ctx.client().videos.edit(params, { signal: ctx.signal }), flags);
  },
};
