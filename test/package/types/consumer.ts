// Type-checked (never run) in a strict consumer project, once with module/moduleResolution
// nodenext and once with bundler, against the INSTALLED tarball's declarations. It touches the
// whole public API, so a declaration that fails to resolve or widens to `any` shows up here.
import OmniMediaDefault, {
  APIConnectionError,
  APIError,
  APITimeoutError,
  AuthenticationError,
  BadRequestError,
  CallbackError,
  InsufficientBalanceError,
  InternalServerError,
  NotFoundError,
  OmniMedia,
  OmniMediaError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  TaskFailedError,
  ValidationError,
  WaitTimeoutError,
  isFailureStatus,
  isSuccessStatus,
  isTerminalStatus,
  type ClientOptions,
  type ImageEditParams,
  type ImageGenerateParams,
  type ImageUpload,
  type TaskPromise,
  type TaskResult,
  type TaskStatus,
  type TaskSubmission,
  type ValidationIssue,
  type VideoEditParams,
  type VideoGenerateParams,
  type VideoUpload,
  type WaitOptions,
} from 'omnimedia';
import { imageSizeProblem, sniffMediaType, TaskResultSchema, VideoGenerateBodySchema } from 'omnimedia/schemas';
import type { VideoTaskSubmission } from 'omnimedia/resources';
import { MemoryDedupeStore, type CallbackDedupeStore } from 'omnimedia/coordination';
import { createProxy, ProxyDenied, type OmniMediaProxy, type ProxyIdentity, type ProxyPolicyRequest } from 'omnimedia/proxy';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(_: T): void {}

const options: ClientOptions = { baseURL: 'http://127.0.0.1:1', apiKey: 'k', maxRetries: 1, timeout: 1000, logLevel: 'debug' };
const client: OmniMedia = new OmniMediaDefault(options);

export async function everything(): Promise<void> {
  const image: ImageGenerateParams = { model: 'omni-image', prompt: 'p', size: '1024x1024', n: 2, quality: 'high' };
  const submission: TaskPromise<TaskSubmission> = client.images.generate(image);
  expectType<Equal<Awaited<typeof submission>['task_id'], string>>(true);
  const finished: TaskResult = await submission.wait({ timeout: 1000, onProgress: (task) => task.status });
  expectType<Equal<typeof finished.status, TaskStatus>>(true);
  // Closed result types: a misspelt field is an error, and a known one is `T | undefined`, never null.
  // @ts-expect-error there is no `stauts`
  void finished.stauts;
  const normalized: string | undefined = (await client.videos.generate({ prompt: 'a fox' })).normalized_model;
  void normalized;

  const upload: ImageUpload = await client.uploads.image(new Blob([new Uint8Array([1])]), { filename: 'a.png' });
  const edit: ImageEditParams = { model: 'omni-image', prompt: 'night', image: [upload, upload.url], mask: upload };
  await client.images.edit(edit).wait();

  const video: VideoGenerateParams = { prompt: 'a fox', seconds: 6, resolution: '1080p', aspect_ratio: '16:9', images: [upload] };
  const videoTask: VideoTaskSubmission = await client.videos.generate(video);
  await client.videos.generate({ model: 'omni_flash', messages: [{ role: 'user', content: 'a fox' }], seconds: '8' }).wait();

  // @ts-expect-error seconds must be 4, 6, 8 or 10
  client.videos.generate({ prompt: 'a fox', seconds: 5 });

  const source: VideoUpload = await client.uploads.video(new Uint8Array([0]));
  const videoEdit: VideoEditParams = { prompt: 'make it snow', input_video: source };
  await client.videos.edit(videoEdit);
  // @ts-expect-error video edits take no seconds
  client.videos.edit({ prompt: 'x', input_video: 'up_1', seconds: 4 });

  const wait: WaitOptions = { initialDelay: 0, interval: 100, maxInterval: 1000, signal: AbortSignal.timeout(1000) };
  const task = await client.tasks.retrieve(videoTask.task_id);
  await client.tasks.wait(task.task_id, wait);
  const keyless: boolean = new OmniMedia({ baseURL: 'http://127.0.0.1:1' }).hasApiKey;
  void keyless;

  // The zod schemas subpath: real zod/mini schemas whose output is the public type.
  expectType<Equal<(typeof TaskResultSchema)['_zod']['output'], TaskResult>>(true);
  void VideoGenerateBodySchema._zod.def.type;

  const problem: string | undefined = imageSizeProblem('1000x1000');
  const sniffed = sniffMediaType(new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  void [problem, sniffed?.mediaType, isFailureStatus('failed'), isSuccessStatus('completed'), isTerminalStatus('x')];

  try {
    await client.tasks.retrieve('t');
  } catch (error) {
    if (error instanceof ValidationError) {
      const issues: readonly ValidationIssue[] = error.issues;
      void issues;
    }
    if (error instanceof RateLimitError) void (error.retryAfter satisfies number | undefined);
    if (error instanceof APIError) void [error.status, error.body, error.headers, error.requestId];
    if (error instanceof TaskFailedError) void [error.task, error.failReason];
    if (error instanceof WaitTimeoutError) void [error.taskId, error.lastTask];
    const kinds = [
      APIConnectionError,
      APITimeoutError,
      AuthenticationError,
      BadRequestError,
      CallbackError,
      InsufficientBalanceError,
      InternalServerError,
      NotFoundError,
      PermissionDeniedError,
      ServiceUnavailableError,
    ];
    if (kinds.some((kind) => error instanceof kind) && error instanceof OmniMediaError) void error.taskId;
  }
}

// omnimedia/proxy: the server side of a browser app, and the page's client in proxy mode.
export function proxySide(): OmniMediaProxy {
  const proxy = createProxy({
    basePath: '/api/omnimedia',
    authorize: async (request: Request): Promise<ProxyIdentity | null> => (request.headers.get('cookie') ? { id: 'user_1', plan: 'pro' } : null),
    allowedOrigins: ['https://app.example.com'],
    rateLimit: { submissions: { limit: 20, windowMs: 60_000 } },
    policy: ({ identity, operation }: ProxyPolicyRequest) => {
      if (operation === 'video_generation' && identity.plan !== 'pro') throw new ProxyDenied('videos need the pro plan');
      return true;
    },
    onSubmitted: ({ task_id }) => void task_id.toUpperCase(),
  });
  const handle: (request: Request) => Promise<Response> = proxy.handler;
  void handle;
  const page = new OmniMediaDefault({ proxyURL: '/api/omnimedia' });
  void page.images.generate({ model: 'omni-image', prompt: 'a fox' }).wait();
  return proxy;
}

// omnimedia/coordination: the ports a custom store implements, and the in-memory stores.
export const dedupeStore: CallbackDedupeStore = new MemoryDedupeStore();
// omnimedia/resources: types only.
export type VideoSubmission = VideoTaskSubmission;
