import type { ImageEditParams, ImageGenerateParams, TaskPromise, TaskSubmission, VideoEditParams, VideoGenerateParams } from 'omnimedia';
import type { LocalFiles } from './local-files.ts';
import type { McpSettings } from './options.ts';
import type { SubmissionTool } from './tool-schemas.ts';

/** A TaskPromise in a box: an async function cannot return a thenable without awaiting it. */
export interface Started {
  call: TaskPromise<TaskSubmission>;
}

/** Each reference of a list, a local file among them uploaded first. */
const each = (value: unknown, field: string, ref: (item: unknown, field: string) => Promise<unknown>) =>
  Array.isArray(value) ? Promise.all(value.map((item, i) => ref(item, `${field}[${i}]`))) : ref(value, field);

/**
 * Submit a tool call through the client: the agent's arguments are the SDK method's params, with
 * local paths (inside the allowed directories) turned into files the SDK uploads first, the
 * server's image model and callback URL filled in. Every other rule is the SDK's own: a broken
 * one rejects with its `ValidationError` before anything is sent.
 */
export async function submit(tool: SubmissionTool, args: unknown, settings: McpSettings, files: LocalFiles): Promise<Started> {
  const { client, imageModel, callbackURL } = settings;
  const given = { ...(args as Record<string, unknown>) };
  if (callbackURL !== undefined) given.callback_url = callbackURL;
  const image = files.image.bind(files);
  switch (tool) {
    case 'generate_image':
      if (given.model === undefined && imageModel !== undefined) given.model = imageModel;
      return { call: client.images.generate(given as unknown as ImageGenerateParams) };
    case 'edit_image':
      if (given.model === undefined && imageModel !== undefined) given.model = imageModel;
      given.image = await each(given.image, 'image', image);
      if (given.mask !== undefined) given.mask = await image(given.mask, 'mask');
      return { call: client.images.edit(given as unknown as ImageEditParams) };
    case 'generate_video':
      if (Array.isArray(given.images)) given.images = await each(given.images, 'images', image);
      return { call: client.videos.generate(given as unknown as VideoGenerateParams) };
    case 'edit_video':
      given.input_video = await files.video(given.input_video, 'input_video');
      return { call: client.videos.edit(given as unknown as VideoEditParams) };
  }
}
