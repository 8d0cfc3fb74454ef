// The SDK's own fixtures of request bodies: each with the issues (path and message) the rules
// report, none for a valid one. test/schemas/rules.test.ts checks the client and the zod schemas
// against them, test/schemas/json-schema.test.ts the rules' JSON Schemas, test/mcp/ the agents' tools.
import { ImageEditBodySchema, ImageGenerateParamsSchema, VideoEditBodySchema, VideoGenerateBodySchema, VideoMessageSchema } from 'omnimedia/schemas';
import type * as z from 'zod/mini';
import { IMAGE_EDIT_RULE, IMAGE_GENERATE_RULE } from '../../src/schemas/image-rules.ts';
import type { Rule } from '../../src/schemas/rules.ts';
import { VIDEO_EDIT_RULE, VIDEO_GENERATE_RULE, VIDEO_MESSAGE_RULE } from '../../src/schemas/video-rules.ts';

/** Each body's rule and zod schema. */
export const BODIES: Record<string, [Rule<unknown, unknown>, z.core.$ZodType]> = {
  'image generation': [IMAGE_GENERATE_RULE, ImageGenerateParamsSchema],
  'image edit': [IMAGE_EDIT_RULE, ImageEditBodySchema],
  'video generation': [VIDEO_GENERATE_RULE, VideoGenerateBodySchema],
  'video edit': [VIDEO_EDIT_RULE, VideoEditBodySchema],
  'video message': [VIDEO_MESSAGE_RULE, VideoMessageSchema],
};

export const M = [{ role: 'user', content: 'a fox' }];
const image = (url: unknown) => ({ type: 'image_url', image_url: { url } });
const PART = 'must be a {type: "text", text} or {type: "image_url", image_url: {url}} part';

export const CASES: [body: keyof typeof BODIES, input: unknown, issues: [path: string, message: string][]][] = [
  // The body itself.
  ['image generation', undefined, [['', 'is required']]],
  ['image generation', null, [['', 'must be an object']]],
  ['image generation', [], [['', 'must be an object']]],
  ['image generation', 'a fox', [['', 'must be an object']]],
  ['image generation', {}, [['model', 'is required'], ['prompt', 'is required']]],
  ['image generation', { model: '', prompt: ' \n' }, [['model', 'must not be empty'], ['prompt', 'must not be empty']]],
  ['image generation', { model: null, prompt: 2 }, [['model', 'must be a string'], ['prompt', 'must be a string']]],
  ['image generation', { model: 'm', prompt: 'x'.repeat(4001) }, [['prompt', 'must be at most 4,000 characters (got 4,001)']]],
  ['image generation', { model: 'm', prompt: '🦊'.repeat(4000), unknown: { kept: true } }, []],
  [
    'image generation',
    { model: 'm', prompt: 'p', size: 5, n: 1.5, quality: 'ultra', callback_url: 'ftp://host/cb' },
    [
      ['size', 'must be a string such as "1024x1024" or "auto"'],
      ['n', 'must be an integer from 1 to 4'],
      ['quality', 'must be one of "low", "medium", "high" or "auto"'],
      ['callback_url', 'must be an absolute http(s) URL'],
    ],
  ],
  [
    'image generation',
    { model: 'm', prompt: 'p', size: '1000x1000', n: 2 ** 60, quality: null, callback_url: 7 },
    [
      ['size', 'both sides must be multiples of 16 (got 1000x1000)'],
      ['n', 'must be an integer from 1 to 4'],
      ['quality', 'must be one of "low", "medium", "high" or "auto"'],
      ['callback_url', 'must be a string'],
    ],
  ],
  ['image generation', { model: 'm', prompt: 'p', n: '2' }, [['n', 'must be an integer from 1 to 4']]],
  ['image generation', { model: 'm', prompt: 'p', callback_url: '/cb' }, [['callback_url', 'must be an absolute http(s) URL']]],
  ['image generation', { model: 'm', prompt: 'p', size: 'auto', n: 4, quality: 'high', callback_url: 'https://app.test/cb' }, []],
  // Edits: one image or a list of them.
  ['image edit', { model: 'm', prompt: 'p' }, [['image', 'is required']]],
  ['image edit', { model: 'm', prompt: 'p', image: '' }, [['image', 'must not be empty']]],
  ['image edit', { model: 'm', prompt: 'p', image: [] }, [['image', 'must hold at least one image']]],
  ['image edit', { model: 'm', prompt: 'p', image: ['u', ''] }, [['image[1]', 'must not be empty']]],
  ['image edit', { model: 'm', prompt: 'p', image: ['u', 3] }, [['image[1]', 'must be an uploaded image URL']]],
  ['image edit', { model: 'm', prompt: 'p', image: 5 }, [['image', 'must be an uploaded image URL or a list of them']]],
  ['image edit', { model: 'm', prompt: 'p', image: 'u', mask: '' }, [['mask', 'must not be empty']]],
  ['image edit', { model: 'm', prompt: 'p', image: 'u', mask: null }, [['mask', 'must be an uploaded image URL']]],
  ['image edit', { model: 'm', prompt: 'p', image: ['u', 'v'], mask: 'w', n: 1 }, []],
  // Videos: the messages, down to each part.
  ['video generation', {}, [['model', 'is required'], ['messages', 'is required']]],
  ['video generation', { model: 'm', messages: [] }, [['messages', 'must hold at least one message']]],
  ['video generation', { model: 'm', messages: 'a fox' }, [['messages', 'must be a list of chat messages']]],
  ['video generation', { model: 'm', messages: [null] }, [['messages[0]', 'must be a chat message {role, content}']]],
  ['video generation', { model: 'm', messages: [{}] }, [['messages[0].role', 'is required'], ['messages[0].content', 'is required']]],
  [
    'video generation',
    { model: 'm', messages: [{ role: 1, content: 1 }] },
    [['messages[0].role', 'must be a string such as "user"'], ['messages[0].content', 'must be a string or a list of content parts']],
  ],
  ['video generation', { model: 'm', messages: [{ role: 'user', content: [{ type: 'text' }] }] }, [['messages[0].content[0].text', 'is required']]],
  ['video generation', { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 3 }] }] }, [['messages[0].content[0].text', 'must be a string']]],
  ['video generation', { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url' }] }] }, [['messages[0].content[0].image_url', 'is required']]],
  ['video generation', { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: 'u' }] }] }, [['messages[0].content[0].image_url', 'must be an object {url}']]],
  ['video generation', { model: 'm', messages: [{ role: 'user', content: [image('')] }] }, [['messages[0].content[0].image_url.url', 'must not be empty']]],
  ['video generation', { model: 'm', messages: [{ role: 'user', content: [image(5)] }] }, [['messages[0].content[0].image_url.url', 'must be an uploaded image URL']]],
  ['video generation', { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'video' }] }] }, [['messages[0].content[1]', PART]]],
  ['video generation', { model: 'm', messages: [{ role: 'user', content: ['a fox'] }] }, [['messages[0].content[0]', PART]]],
  ['video generation', { model: 'm', messages: [{ role: 'user', content: [{ type: 'constructor' }, { type: '__proto__' }] }] }, [['messages[0].content[0]', PART], ['messages[0].content[1]', PART]]],
  ['video generation', { model: 'm', messages: [{ role: 'user', content: [image('u'), image('v'), image('w'), { type: 'text', text: 'a' }] }] }, []],
  ['video generation', { model: 'm', messages: [{ role: 'user', content: [image('u'), image('v')] }, { role: 'user', content: [image('w'), image('x')] }] }, [['messages', 'may reference at most 3 images (got 4)']]],
  ['video generation', { model: 'm', messages: M, seconds: 5 }, [['seconds', 'must be one of 4, 6, 8 or 10']]],
  ['video generation', { model: 'm', messages: M, seconds: null }, [['seconds', 'must be one of 4, 6, 8 or 10']]],
  ['video generation', { model: 'm', messages: M, seconds: ['8'] }, [['seconds', 'must be one of 4, 6, 8 or 10']]],
  [
    'video generation',
    { model: 'm', messages: M, aspect_ratio: '1:1', resolution: 4, callback_url: 'x' },
    [
      ['aspect_ratio', 'must be one of "16:9" or "9:16"'],
      ['resolution', 'must be one of "720p", "1080p" or "4K"'],
      ['callback_url', 'must be an absolute http(s) URL'],
    ],
  ],
  ['video edit', { model: 'm', messages: M }, [['input_video', 'is required']]],
  ['video edit', { model: 'm', messages: M, input_video: 'up_1' }, [['input_video', 'must be {upload_id} from uploads.video']]],
  ['video edit', { model: 'm', messages: M, input_video: null }, [['input_video', 'must be {upload_id} from uploads.video']]],
  ['video edit', { model: 'm', messages: M, input_video: {} }, [['input_video.upload_id', 'is required']]],
  ['video edit', { model: 'm', messages: M, input_video: { upload_id: '' } }, [['input_video.upload_id', 'must not be empty']]],
  ['video edit', { model: 'm', messages: M, input_video: { upload_id: 7 } }, [['input_video.upload_id', 'must be a video upload id']]],
  ['video edit', { model: 'm', messages: M, input_video: { upload_id: 'u' }, seconds: 8 }, [['seconds', 'video edits take no seconds: the length follows the source video']]],
  ['video edit', { model: 'm', messages: M, input_video: { upload_id: 'u' }, seconds: undefined }, []],
  ['video message', undefined, [['', 'is required']]],
  ['video message', 'a fox', [['', 'must be a chat message {role, content}']]],
  ['video message', { role: 'user', content: [] }, []],
];
