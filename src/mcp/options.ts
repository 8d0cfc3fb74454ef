import { resolve } from 'node:path';
import { OmniMedia, ValidationError, type ValidationIssue } from 'omnimedia';
import { callbackUrl } from '../schemas/fields.ts';
import type { RuleIssue } from '../schemas/rules.ts';

/**
 * Options of {@link createMcpServer}.
 *
 * @example
 * ```ts
 * const server = createMcpServer({ client, allowedDirs: [process.cwd()], downloadDir: './results', waitMs: 50_000 });
 * ```
 */
export interface McpServerOptions {
  /**
   * The client the tools submit, upload and wait with: its key, base URL, retries, callbacks
   * and fleet coordination. Default: `new OmniMedia()` (`OMNIMEDIA_API_KEY` and
   * `OMNIMEDIA_BASE_URL` from the environment).
   */
  client?: OmniMedia;
  /**
   * Directories whose files the tools may read and upload (local `image`, `mask`, `images`,
   * `input_video` and `upload_file`'s `path`), checked after resolving `..` and symbolic links.
   * Default: none (the tools take upload URLs and ids only).
   */
  allowedDirs?: readonly string[];
  /** Save every result file here as well, linked as `file://` in the tool result. Default: not saved. */
  downloadDir?: string;
  /** Embed image results of at most 1 MiB in the tool result (`image` blocks). Default `true`. */
  embedImages?: boolean;
  /**
   * How long a call without MCP task support waits for the task to end, in ms, with progress
   * notifications; a task still running then is returned with its `task_id` and the advice to
   * call `get_task`. `get_task` waits as long. Default 50,000 (MCP clients often give up on a
   * request after 60 s).
   */
  waitMs?: number;
  /**
   * The model `generate_image` and `edit_image` use when the agent names none (the service's
   * image models are not listed anywhere an agent could read). Default: the agent must name one.
   */
  imageModel?: string;
  /**
   * The `callback_url` of every submission, replacing any the agent gives: the app's handler
   * (`client.callbacks.handler`) then ends the server's waits at once. Default: the agent's, if
   * any, sent as it is; refused (a tool error, nothing sent) when the client has a
   * `callbackSecret`, whose token must never go to a host the agent chose.
   */
  callbackURL?: string;
}

/** The options, checked and with their defaults. */
export interface McpSettings {
  client: OmniMedia;
  allowedDirs: readonly string[];
  downloadDir: string | undefined;
  embedImages: boolean;
  waitMs: number;
  imageModel: string | undefined;
  callbackURL: string | undefined;
}

/** A call without task support waits this long by default: under the 60 s many MCP clients allow a request. */
export const DEFAULT_WAIT_MS = 50_000;
/** The longest `waitMs` taken: an hour. */
const MAX_WAIT_MS = 3_600_000;

const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** Check `options` (a `ValidationError` naming each wrong one) and fill in the defaults. */
export function resolveMcpOptions(options: McpServerOptions = {}): McpSettings {
  const issues: ValidationIssue[] = [];
  const { client, allowedDirs = [], downloadDir, embedImages = true, waitMs = DEFAULT_WAIT_MS, imageModel, callbackURL } = options ?? {};
  if (client !== undefined && !(client instanceof OmniMedia)) issues.push({ path: 'client', message: 'must be an OmniMedia client' });
  if (!Array.isArray(allowedDirs)) issues.push({ path: 'allowedDirs', message: 'must be a list of directories' });
  else allowedDirs.forEach((dir, i) => isText(dir) || issues.push({ path: `allowedDirs[${i}]`, message: 'must be a directory path' }));
  if (downloadDir !== undefined && !isText(downloadDir)) issues.push({ path: 'downloadDir', message: 'must be a directory path' });
  if (typeof embedImages !== 'boolean') issues.push({ path: 'embedImages', message: 'must be true or false' });
  if (typeof waitMs !== 'number' || !(waitMs > 0 && waitMs <= MAX_WAIT_MS))
    issues.push({ path: 'waitMs', message: `must be a number of ms from 1 to ${MAX_WAIT_MS.toLocaleString('en-US')}` });
  if (imageModel !== undefined && !isText(imageModel)) issues.push({ path: 'imageModel', message: 'must be a model name' });
  if (callbackURL !== undefined) {
    const broken: RuleIssue[] = [];
    callbackUrl(callbackURL, broken, []);
    for (const { message } of broken) issues.push({ path: 'callbackURL', message });
  }
  if (issues.length > 0) throw new ValidationError(issues, 'createMcpServer options');
  return {
    client: client ?? new OmniMedia(),
    allowedDirs: (allowedDirs as readonly string[]).map((dir) => resolve(dir)),
    downloadDir: downloadDir === undefined ? undefined : resolve(downloadDir),
    embedImages,
    waitMs,
    imageModel,
    callbackURL,
  };
}
