/**
 * The six tools as an agent sees them: input schemas built from the SDK's request rules (what
 * JSON Schema can state of each rule, from the same constants as its check: a limit changed
 * there changes the schema and the description), descriptions that give the limits an agent
 * needs, annotations. What JSON Schema cannot state (multiples of 16, the ratio, the pixel
 * count, images counted across messages) the rules check when the tool runs: a tool error,
 * nothing sent.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { ASPECT_RATIOS, IMAGE_QUALITIES, MAX_IMAGE_PROMPT_LENGTH, MAX_IMAGES_PER_REQUEST, MAX_REFERENCE_IMAGES, VIDEO_RESOLUTIONS, VIDEO_SECONDS } from '../schemas/constants.ts';
import { oneOf } from '../schemas/fields.ts';
import { IMAGE_EDIT_RULE, IMAGE_GENERATE_RULE } from '../schemas/image-rules.ts';
import { MAX_PIXELS, MAX_RATIO, MAX_SIDE, MIN_PIXELS } from '../schemas/image-size.ts';
import { jsonSchemaOf } from '../schemas/rule-json.ts';
import type { JsonSchema, Rule } from '../schemas/rules.ts';
import { MAX_TASK_ID_LENGTH } from '../schemas/task-id.ts';
import { VIDEO_EDIT_RULE, VIDEO_GENERATE_RULE, VIDEO_PROMPT_RULE } from '../schemas/video-rules.ts';
import { IMAGE_UPLOAD_RULE, VIDEO_UPLOAD_RULE, type UploadRule } from '../uploads/inputs.ts';

/** The names of the tools. */
export type ToolName = 'generate_image' | 'edit_image' | 'generate_video' | 'edit_video' | 'upload_file' | 'get_task';
/** The tools that submit a billed task (MCP tasks, `taskSupport: 'optional'`). */
export type SubmissionTool = Exclude<ToolName, 'upload_file' | 'get_task'>;

/** One tool's definition. */
export interface ToolDefinition {
  title: string;
  description: string;
  /** A JSON Schema object: `type: 'object'`, `properties`, `required`; unknown fields pass through, as the SDK's rules let them. */
  inputSchema: JsonSchema;
  annotations: ToolAnnotations;
}

/** What the descriptions depend on. */
export interface ToolContext {
  allowedDirs: readonly string[];
  waitMs: number;
  imageModel: string | undefined;
}

const fieldsOf = (rule: Rule<unknown, unknown>) => (jsonSchemaOf(rule) as { properties: Record<string, JsonSchema> }).properties;
const withText = (schema: JsonSchema | undefined, description: string): JsonSchema => ({ ...schema, description });
const objectSchema = (properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema => ({ type: 'object', properties, required: [...required] });

const mib = (bytes: number) => `${bytes / (1024 * 1024)} MiB`;
const count = (n: number) => n.toLocaleString('en-US');
/** The size rules in words, from the limits imageSizeProblem checks. */
const SIZE_RULES = `both sides multiples of 16, the longer side at most ${MAX_SIDE}, aspect ratio at most ${MAX_RATIO}:1, ${count(MIN_PIXELS)} to ${count(MAX_PIXELS)} pixels`;
const kinds = (rule: UploadRule) => rule.accept.join(', ');

const SUBMISSION: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

/** The definitions of the six tools for a server with `context`. */
export function toolDefinitions(context: ToolContext): Record<ToolName, ToolDefinition> {
  const seconds = Math.round(context.waitMs / 1000);
  const where =
    context.allowedDirs.length > 0
      ? `a local file inside ${context.allowedDirs.join(', ')} (relative paths start at the server's working directory)`
      : 'no local file (this server reads none)';
  const flow =
    `Each call submits one billed task. With MCP tasks it answers at once and the task follows the service's; ` +
    `without, it waits up to ${seconds} s, then returns the running task: follow it with get_task and its task_id, never by calling this tool again.`;

  const image = fieldsOf(IMAGE_GENERATE_RULE);
  const imageFields = (model: JsonSchema | undefined) => ({
    model: withText(model, context.imageModel ? `The image model; default ${context.imageModel}.` : 'The image model, e.g. omni-image.'),
    prompt: withText(image.prompt, `What the image shows; at most ${count(MAX_IMAGE_PROMPT_LENGTH)} characters.`),
    size: withText(image.size, `"auto" (default) or WIDTHxHEIGHT: ${SIZE_RULES}. E.g. 1024x1024, 1536x1024, 1024x1536, 2048x2048, 3840x2160.`),
    n: withText(image.n, `How many images, 1 to ${MAX_IMAGES_PER_REQUEST}; default 1.`),
    quality: withText(image.quality, `${oneOf(IMAGE_QUALITIES)}; default "auto".`),
    callback_url: withText(image.callback_url, 'Optional: the service POSTs the finished task to this absolute http(s) URL.'),
  });
  const imageRequired = context.imageModel ? ['prompt'] : ['model', 'prompt'];

  const edit = fieldsOf(IMAGE_EDIT_RULE);
  const imageRef = `an upload URL (https, from upload_file) or ${where}: a ${kinds(IMAGE_UPLOAD_RULE)} image of at most ${mib(IMAGE_UPLOAD_RULE.maxBytes)}, uploaded first`;
  const { model: editModel, prompt: editPrompt, size, n, quality, callback_url } = imageFields(edit.model);

  const video = fieldsOf(VIDEO_GENERATE_RULE);
  const videoEdit = fieldsOf(VIDEO_EDIT_RULE);
  const videoOptions = {
    resolution: withText(video.resolution, `${oneOf(VIDEO_RESOLUTIONS)}; default "720p".`),
    aspect_ratio: withText(video.aspect_ratio, `${oneOf(ASPECT_RATIOS)}.`),
    callback_url: withText(video.callback_url, 'Optional: the service POSTs the finished task to this absolute http(s) URL.'),
  };
  const messages = (schema: JsonSchema | undefined) =>
    withText(schema, 'Instead of prompt (and images): the chat messages sent as they are, [{"role": "user", "content": "..."}].');

  return {
    generate_image: {
      title: 'Generate images',
      description: `Generate images from a text prompt. The result: the task, each image's URL as a resource link (small images embedded). ${flow}`,
      inputSchema: objectSchema(imageFields(image.model), imageRequired),
      annotations: { title: 'Generate images', ...SUBMISSION },
    },
    edit_image: {
      title: 'Edit images',
      description: `Edit one or more images (and an optional mask) as the prompt says. Each image is ${imageRef}. ${flow}`,
      inputSchema: objectSchema(
        {
          model: editModel,
          prompt: withText(editPrompt, `The editing instruction; at most ${count(MAX_IMAGE_PROMPT_LENGTH)} characters.`),
          image: withText(edit.image, `The image to edit, or a list of them: each ${imageRef}.`),
          mask: withText(edit.mask, `Optional mask image: ${imageRef}.`),
          size,
          n,
          quality,
          callback_url,
        },
        [...imageRequired, 'image'],
      ),
      annotations: { title: 'Edit images', ...SUBMISSION },
    },
    generate_video: {
      title: 'Generate a video',
      description:
        `Generate a video from a prompt, or from up to ${MAX_REFERENCE_IMAGES} reference images and a prompt. Videos take minutes. ` +
        `Give prompt (or messages). ${flow}`,
      inputSchema: objectSchema(
        {
          model: withText(video.model, 'omni_flash (text to video) or omni_flash_components (image to video); default: chosen from images.'),
          prompt: withText(jsonSchemaOf(VIDEO_PROMPT_RULE), 'What the video shows.'),
          images: {
            type: 'array',
            items: { type: 'string', minLength: 1 },
            maxItems: MAX_REFERENCE_IMAGES,
            description: `Up to ${MAX_REFERENCE_IMAGES} reference images (image to video): each ${imageRef}.`,
          },
          seconds: withText(video.seconds, `The length: ${oneOf(VIDEO_SECONDS.map(Number))} seconds; default 10.`),
          ...videoOptions,
          messages: messages(video.messages),
        },
        [],
      ),
      annotations: { title: 'Generate a video', ...SUBMISSION },
    },
    edit_video: {
      title: 'Edit a video',
      description: `Edit a video as the prompt says; its length follows the source (no seconds). Give prompt (or messages). ${flow}`,
      inputSchema: objectSchema(
        {
          model: withText(videoEdit.model, 'Default omni_flash_edit.'),
          prompt: withText(jsonSchemaOf(VIDEO_PROMPT_RULE), 'The editing instruction.'),
          input_video: {
            anyOf: [{ type: 'string', minLength: 1 }, videoEdit.input_video],
            description:
              `The source video: an upload_id (from upload_file) or ${where}: a ${kinds(VIDEO_UPLOAD_RULE)} video of at most ` +
              `${mib(VIDEO_UPLOAD_RULE.maxBytes)}, uploaded first.`,
          },
          ...videoOptions,
          messages: messages(videoEdit.messages),
        },
        ['input_video'],
      ),
      annotations: { title: 'Edit a video', ...SUBMISSION },
    },
    upload_file: {
      title: 'Upload a reference file',
      description:
        `Upload an image or a video for the other tools; give path (${where}) or url (an http(s) address the server downloads). ` +
        `The kind is read from the file's first bytes: an image (${kinds(IMAGE_UPLOAD_RULE)}, at most ${mib(IMAGE_UPLOAD_RULE.maxBytes)}) gives a url ` +
        `for edit_image and generate_video; a video (${kinds(VIDEO_UPLOAD_RULE)}, at most ${mib(VIDEO_UPLOAD_RULE.maxBytes)}) an upload_id for edit_video. ` +
        'Valid 24 hours. Not billed.',
      inputSchema: objectSchema(
        {
          path: { type: 'string', minLength: 1, description: `A local file: ${where}.` },
          url: { type: 'string', pattern: '^[hH][tT][tT][pP][sS]?://', description: 'An http(s) URL of the file.' },
        },
        [],
      ),
      annotations: { title: 'Upload a reference file', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    get_task: {
      title: 'Get a task',
      description:
        `Read a task by its task_id (free). Waits up to ${seconds} s for it to end, with progress; wait: false reads it once. ` +
        'The finished task carries its result URLs.',
      inputSchema: objectSchema(
        {
          task_id: { type: 'string', minLength: 1, maxLength: MAX_TASK_ID_LENGTH, description: 'The task_id a submission returned.' },
          wait: { type: 'boolean', description: `Wait up to ${seconds} s for the task to end (default true).` },
        },
        ['task_id'],
      ),
      annotations: { title: 'Get a task', readOnlyHint: true, openWorldHint: true },
    },
  };
}
