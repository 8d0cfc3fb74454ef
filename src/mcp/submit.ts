import { ValidationError, type OmniMedia, type TaskPromise, type TaskSubmission, type ValidationIssue } from 'omnimedia';
import type { BatchJob } from 'omnimedia/resources';
import type { LocalFiles } from './local-files.ts';
import type { McpSettings } from './options.ts';
import type { Prepare } from './tool-call.ts';
import type { SubmissionTool } from './tool-schemas.ts';

type Operation = 'images.generate' | 'images.edit' | 'videos.generate' | 'videos.edit';

const OPERATION: Record<SubmissionTool, Operation> = {
  generate_image: 'images.generate',
  edit_image: 'images.edit',
  generate_video: 'videos.generate',
  edit_video: 'videos.edit',
};

/** The fields that may name a local file, per tool: what its upload gives (an image's url, a video's upload_id). */
const FILE_FIELDS: Record<SubmissionTool, readonly { field: string; kind: 'image' | 'video' }[]> = {
  generate_image: [],
  edit_image: [
    { field: 'image', kind: 'image' },
    { field: 'mask', kind: 'image' },
  ],
  generate_video: [{ field: 'images', kind: 'image' }],
  edit_video: [{ field: 'input_video', kind: 'video' }],
};

interface LocalFile {
  /** Where it goes: the field, and its place in a list. */
  field: string;
  index: number | undefined;
  path: string;
  kind: 'image' | 'video';
}

/**
 * The agent's arguments with the server's image model and callback URL filled in. An agent's
 * own `callback_url` is refused (nothing sent) when the client signs callbacks: the client
 * would put a token of the app's secret on it, valid for the task, for a host the agent chose.
 */
function paramsOf(tool: SubmissionTool, args: unknown, settings: McpSettings): Record<string, unknown> {
  const params = { ...(args as Record<string, unknown>) };
  // The server's callback URL replaces the agent's; see the option.
  if (settings.callbackURL !== undefined) params.callback_url = settings.callbackURL;
  else if (params.callback_url !== undefined && settings.client.callbackTokens !== undefined)
    throw new ValidationError(
      [{ path: 'callback_url', message: "is not taken by this server: its client signs callbacks with the app's secret, which never goes to a URL an agent names (the server's callbackURL option sets one)" }],
      `${OPERATION[tool]} params`,
    );
  if ((tool === 'generate_image' || tool === 'edit_image') && params.model === undefined && settings.imageModel !== undefined) params.model = settings.imageModel;
  return params;
}

/** The local files `params` names (each checked against the allowed directories), with each replaced by its real path. */
async function localFiles(tool: SubmissionTool, params: Record<string, unknown>, files: LocalFiles): Promise<LocalFile[]> {
  const found: LocalFile[] = [];
  for (const { field, kind } of FILE_FIELDS[tool]) {
    const value = params[field];
    const one = async (item: unknown, index: number | undefined): Promise<unknown> => {
      const path = await files.localPath(item, kind, index === undefined ? field : `${field}[${index}]`);
      if (path === undefined) return item;
      found.push({ field, index, path, kind });
      return path;
    };
    if (Array.isArray(value)) params[field] = await Promise.all(value.map((item, i) => one(item, i)));
    else if (value !== undefined) params[field] = await one(value, undefined);
  }
  return found;
}

/**
 * Every rule of the SDK checked, local files included (type and size from their bytes), with
 * nothing sent: the client's own dry run (`client.batch(..., { dryRun: true })`), which reads
 * a string where a file goes as a local path, as these params hold them. A `ValidationError`
 * naming each field as the agent gave it.
 */
async function check(client: OmniMedia, tool: SubmissionTool, params: Record<string, unknown>): Promise<void> {
  for await (const line of client.batch([{ id: 'mcp', op: OPERATION[tool], params } as unknown as BatchJob], { dryRun: true })) {
    const issues = line.error?.issues;
    if (line.status === 'valid') return;
    if (!issues) throw new ValidationError([{ path: '', message: line.error?.message ?? 'is invalid' }], tool);
    throw new ValidationError(
      issues.map(({ path, message }): ValidationIssue => ({ path: path.replace(/^params\./, ''), message })),
      `${OPERATION[tool]} params`,
    );
  }
}

/** Upload a local file (not billed), under the call's signal: its url (an image) or upload_id (a video). */
async function upload(client: OmniMedia, file: LocalFile, signal: AbortSignal): Promise<string> {
  return file.kind === 'image' ? (await client.uploads.image(file.path, { signal })).url : (await client.uploads.video(file.path, { signal })).upload_id;
}

function send(client: OmniMedia, tool: SubmissionTool, params: Record<string, unknown>): TaskPromise<TaskSubmission> {
  switch (tool) {
    case 'generate_image':
      return client.images.generate(params as never);
    case 'edit_image':
      return client.images.edit(params as never);
    case 'generate_video':
      return client.videos.generate(params as never);
    case 'edit_video':
      return client.videos.edit(params as never);
  }
}

/**
 * A submission tool's call as a {@link Prepare}: the agent's arguments are the SDK method's
 * params, a local path (only inside the allowed directories) standing for a file. With local
 * files, every rule is checked first (nothing sent; a broken one is the SDK's
 * `ValidationError`), then the files are uploaded under the call's signal (a cancel aborts
 * them: uploads are not billed); the POST gets no signal (see ToolCall). Without local files
 * the SDK's method checks the rules itself before its POST.
 */
export function prepareSubmission(tool: SubmissionTool, args: unknown, settings: McpSettings, files: LocalFiles): Prepare {
  return async (signal) => {
    const { client } = settings;
    const params = paramsOf(tool, args, settings);
    const local = await localFiles(tool, params, files);
    if (local.length > 0) {
      await check(client, tool, params);
      const sent = await Promise.all(local.map((file) => upload(client, file, signal)));
      local.forEach((file, i) => {
        const value = sent[i];
        if (file.index === undefined) params[file.field] = value;
        else (params[file.field] as unknown[])[file.index] = value;
      });
    }
    return { send: () => send(client, tool, params) };
  };
}
