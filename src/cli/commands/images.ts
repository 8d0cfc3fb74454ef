import type { ImageEditParams, ImageGenerateParams } from 'omnimedia';
import {
  CONNECTION_OPTIONS,
  OUTPUT_OPTIONS,
  SUBMIT_OPTIONS,
  integerOrText,
  listValue,
  stringValue,
  type OptionSpec,
  type ParsedValues,
} from '../args.ts';
import { imageUrls } from '../references.ts';
import { submitTask, waitFlags } from '../wait.ts';
import { defined, type Command } from './command.ts';

const IMAGE_OPTIONS: Record<string, OptionSpec> = {
  model: { type: 'string', short: 'm', value: 'MODEL', description: 'Model name (required)' },
  prompt: { type: 'string', short: 'p', value: 'TEXT', description: 'The prompt, at most 4000 characters (required)' },
  size: { type: 'string', short: 's', value: 'WxH', description: '"auto" (default) or WIDTHxHEIGHT, e.g. 1024x1024, 1536x1024' },
  n: { type: 'string', short: 'n', value: 'N', description: 'Number of images, 1 to 4 (default 1)' },
  quality: { type: 'string', value: 'Q', description: 'low, medium, high or auto (default auto)' },
  'callback-url': { type: 'string', value: 'URL', description: 'The service POSTs the finished task here' },
};

/** The fields both image commands share, as the SDK names them. */
function imageFields(values: ParsedValues): Record<string, unknown> {
  return {
    model: stringValue(values, 'model'),
    prompt: stringValue(values, 'prompt'),
    size: stringValue(values, 'size'),
    n: integerOrText(stringValue(values, 'n')),
    quality: stringValue(values, 'quality'),
    callback_url: stringValue(values, 'callback-url'),
  };
}

export const imagesGenerate: Command = {
  spec: {
    name: 'images generate',
    summary: 'Generate images from a prompt (POST /v1/images/generations).',
    usage: '--model MODEL --prompt TEXT [options]',
    options: { ...IMAGE_OPTIONS, ...SUBMIT_OPTIONS, ...OUTPUT_OPTIONS, ...CONNECTION_OPTIONS },
    examples: [
      'omnimedia images generate -m omni-image -p "a lighthouse at dawn"',
      'omnimedia images generate -m omni-image -p "a lighthouse at dawn" --size 1536x1024 -n 2 --wait --out ./images',
      'omnimedia images generate -m omni-image -p "a fox" --json | jq -r .task_id',
    ],
  },
  async run(ctx) {
    const flags = await waitFlags(ctx);
    // The values go to the SDK as typed; its validation reports any broken rule by field.
    const params = defined(imageFields(ctx.values)) as unknown as ImageGenerateParams;
    return submitTask(ctx, ctx.client().images.generate(params, { signal: ctx.signal }), flags);
  },
};

export const imagesEdit: Command = {
  spec: {
    name: 'images edit',
    summary: 'Edit images (POST /v1/images/edits). Local files are uploaded first; URLs are used as they are.',
    usage: '--model MODEL --prompt TEXT --image FILE_OR_URL [--image ...] [options]',
    options: {
      ...IMAGE_OPTIONS,
      image: {
        type: 'string',
        short: 'i',
        multiple: true,
        value: 'FILE_OR_URL',
        description: 'Image to edit: a PNG/JPEG/WebP file (uploaded first) or an upload URL (required)',
      },
      mask: { type: 'string', value: 'FILE_OR_URL', description: 'Mask image: a file (uploaded first) or an upload URL' },
      ...SUBMIT_OPTIONS,
      ...OUTPUT_OPTIONS,
      ...CONNECTION_OPTIONS,
    },
    examples: [
      'omnimedia images edit -m omni-image -p "make it night" --image photo.png --wait --out .',
      'omnimedia images edit -m omni-image -p "merge them" -i a.png -i b.jpg --mask mask.png',
      'omnimedia images edit -m omni-image -p "add snow" -i https://uploads.example/abc.png --json',
    ],
  },
  async run(ctx) {
    const flags = await waitFlags(ctx);
    const images = await imageUrls(ctx, listValue(ctx.values, 'image'), '--image', 'image');
    const maskArg = stringValue(ctx.values, 'mask');
    const mask = maskArg === undefined ? undefined : (await imageUrls(ctx, [maskArg], '--mask', 'mask'))[0];
    const params = defined({
      ...imageFields(ctx.values),
      // One image is sent as a string, several as a list, as the spec shows both.
      image: images.length === 1 ? images[0] : images.length > 1 ? images : undefined,
      mask,
    }) as unknown as ImageEditParams;
    return submitTask(ctx, ctx.client().images.edit(params, { signal: ctx.signal }), flags);
  },
};
