// The service's endpoints (spec 4), one function each. The router in service.ts has already
// answered preflights, checked the key and applied injected statuses.
import { imageCost, normalizedModel, videoCost } from './pricing.ts';
import { errorResponse, fileResponse, jsonResponse } from './responses.ts';
import { PngCache, sampleMp4Bytes } from './results.ts';
import type { TaskKind } from './tasks.ts';
import { MockTask } from './tasks.ts';
import { UploadStore } from './uploads.ts';
import {
  readJsonBody,
  validateImageEdit,
  validateImageGeneration,
  validateVideoEdit,
  validateVideoGeneration,
} from './validate.ts';

/** What an endpoint needs from the service. */
export interface RouteContext {
  uploads: UploadStore;
  pngs: PngCache;
  /** `{origin}{basePath}` of the request: where uploads and results are served. */
  root: string;
  createTask(init: {
    kind: TaskKind;
    model: string;
    normalizedModel: string | undefined;
    outputs: number;
    size: { width: number; height: number } | undefined;
    cost: number;
    callbackUrl: string | undefined;
  }): MockTask;
  findTask(id: string): MockTask | undefined;
  /** 403 when the request's key has an explicit model scope without this model (spec 5.2). */
  checkScope(model: string): void;
}

/** Image submissions answer 200 with the pending task (spec 4.1, 4.3). */
function submitImageTask(
  kind: 'image_generation' | 'image_edit',
  params: ReturnType<typeof validateImageGeneration>,
  ctx: RouteContext,
): Response {
  const task = ctx.createTask({
    kind,
    model: params.model,
    normalizedModel: undefined,
    outputs: params.n,
    size: params.size,
    cost: imageCost(params.size.width, params.size.height, params.quality, params.n),
    callbackUrl: params.callbackUrl,
  });
  return jsonResponse(task.submission(), 200);
}

export async function imageGeneration(request: Request, ctx: RouteContext): Promise<Response> {
  const params = validateImageGeneration(await readJsonBody(request));
  ctx.checkScope(params.model);
  return submitImageTask('image_generation', params, ctx);
}

export async function imageEdit(request: Request, ctx: RouteContext): Promise<Response> {
  const params = validateImageEdit(await readJsonBody(request));
  ctx.checkScope(params.model);
  params.images.forEach((url, i) => ctx.uploads.requireImage(url, params.images.length === 1 ? 'image' : `image[${i}]`));
  if (params.mask !== undefined) ctx.uploads.requireImage(params.mask, 'mask');
  return submitImageTask('image_edit', params, ctx);
}

export async function videoGeneration(request: Request, ctx: RouteContext): Promise<Response> {
  const params = validateVideoGeneration(await readJsonBody(request));
  ctx.checkScope(params.model);
  for (const url of params.imageUrls) ctx.uploads.requireImage(url, 'messages');
  const task = ctx.createTask({
    kind: 'video_generation',
    model: params.model,
    normalizedModel: normalizedModel(params.model, params.resolution, params.seconds),
    outputs: 1,
    size: undefined,
    cost: videoCost(params.resolution, params.seconds),
    callbackUrl: params.callbackUrl,
  });
  return jsonResponse(task.submission(), 202);
}

export async function videoEdit(request: Request, ctx: RouteContext): Promise<Response> {
  const params = validateVideoEdit(await readJsonBody(request));
  ctx.checkScope(params.model);
  ctx.uploads.requireVideo(params.uploadId);
  const task = ctx.createTask({
    kind: 'video_edit',
    model: params.model,
    normalizedModel: normalizedModel(params.model, params.resolution, undefined),
    outputs: 1,
    size: undefined,
    cost: videoCost(params.resolution, undefined),
    callbackUrl: params.callbackUrl,
  });
  return jsonResponse(task.submission(), 202);
}

export async function upload(request: Request, ctx: RouteContext, kind: 'image' | 'video'): Promise<Response> {
  const stored = await ctx.uploads.accept(request, kind, ctx.root);
  return jsonResponse(stored.record, 200);
}

export function taskQuery(taskId: string, ctx: RouteContext): Response {
  const task = ctx.findTask(taskId);
  if (!task) return errorResponse(404, 'not_found', `no task with id ${taskId}`);
  return jsonResponse(task.result(), 200);
}

/** `GET {root}/files/uploads/{id}/{name}`: an upload's bytes, while it is valid. */
export function uploadedFile(id: string, ctx: RouteContext, method: string): Response {
  const stored = ctx.uploads.get(id);
  if (!stored) return errorResponse(404, 'not_found', 'no such upload, or it expired (uploads are kept 24 hours; the mock keeps the bytes of its last 256 MiB)');
  return fileResponse(stored.bytes, stored.contentType, method);
}

/** `GET {root}/files/results/{taskId}/{file}`: a completed task's output. */
export async function resultFile(taskId: string, file: string, ctx: RouteContext, method: string): Promise<Response> {
  const task = ctx.findTask(taskId);
  if (!task || task.status() !== 'completed' || !task.outputFiles.includes(file))
    return errorResponse(404, 'not_found', `no result ${file} for task ${taskId}`);
  if (task.isVideo) return fileResponse(sampleMp4Bytes(), 'video/mp4', method);
  const size = task.init.size ?? { width: 1024, height: 1024 };
  const png = await ctx.pngs.get(`${taskId}/${file}`, size.width, size.height);
  return fileResponse(png, 'image/png', method);
}
