// `npm run demo`: the whole user story, with visible progress.
//
//   upload a photo → edit it → generate a video from both images → wait with progress →
//   receive the completion callback on a local receiver → download the results → summary
//
// With neither OMNIMEDIA_API_KEY nor OMNIMEDIA_BASE_URL set it runs offline against the mock
// service (omnimedia/testing) started in this process, and finishes in about 10 s. With both
// set it does the same against the real service; the callback step then needs a public URL
// that reaches this machine: set OMNIMEDIA_CALLBACK_URL (e.g. a tunnel) and, if the tunnel
// expects a fixed local port, OMNIMEDIA_CALLBACK_PORT. Without it that step is skipped.
//
// The image model is OMNIMEDIA_IMAGE_MODEL (default `omni-image`; the spec names no image
// model). Results go to ./out/demo/ (or OMNIMEDIA_DEMO_OUT).
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { OmniMedia, OmniMediaError, fileFromPath, type TaskResult, type WaitOptions } from 'omnimedia';
import { startMockServer, type MockServer } from 'omnimedia/testing';

const env = (name: string) => process.env[name]?.trim() || undefined;
const started = performance.now();
const clock = () => `${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s`;
const say = (line: string) => console.log(`${clock()}  ${line}`);
const step = (n: number, title: string) => console.log(`\n${clock()}  ── ${n}. ${title}`);

// ---- Where to run ------------------------------------------------------------------------

const apiKey = env('OMNIMEDIA_API_KEY');
const baseURL = env('OMNIMEDIA_BASE_URL');
if (Boolean(apiKey) !== Boolean(baseURL)) {
  console.error('Set both OMNIMEDIA_API_KEY and OMNIMEDIA_BASE_URL for the real service, or neither for the offline mock.');
  process.exit(2);
}
const offline = !apiKey;
let mock: MockServer | undefined;
if (offline) {
  // Short phases so the story fits in seconds.
  mock = await startMockServer({ durations: { pending: 300, image: 1500, imageEdit: 1500, video: 2500 } });
}
// The secret makes every callback_url carry a token the receiver checks (callbacks are unsigned).
const callbackSecret = randomUUID();
const client = new OmniMedia(
  offline ? { apiKey: 'sk-demo-offline', baseURL: mock!.url, callbackSecret } : { apiKey, baseURL, callbackSecret },
);
const imageModel = env('OMNIMEDIA_IMAGE_MODEL') ?? 'omni-image';
// Against the mock, poll a little faster than the defaults (3 s first, then growing).
const cadence: WaitOptions = offline ? { initialDelay: 500, interval: 500, maxInterval: 1000 } : {};
const outDir = resolve(env('OMNIMEDIA_DEMO_OUT') ?? 'out/demo');
const photoPath = fileURLToPath(new URL('./assets/photo.png', import.meta.url));

console.log(
  offline
    ? `omnimedia demo — offline, against the mock service at ${mock!.url} (set OMNIMEDIA_API_KEY and OMNIMEDIA_BASE_URL for the real one)`
    : `omnimedia demo — against ${baseURL}`,
);

// ---- The callback receiver -------------------------------------------------------------

/**
 * A local HTTP server with the SDK's callback handler: it checks the secret token in the URL,
 * verifies the posted task against the task query (callbacks are unsigned), and ends the
 * client's pending wait for that task at once. `next(taskId)` resolves when it arrives.
 */
async function startReceiver(): Promise<{ server: Server; url: string; next(taskId: string): Promise<{ task: TaskResult; at: number }> }> {
  const waiting = new Map<string, (arrival: { task: TaskResult; at: number }) => void>();
  const arrived = new Map<string, { task: TaskResult; at: number }>();
  const handle = client.callbacks.nodeHandler((task) => {
    const arrival = { task, at: performance.now() };
    arrived.set(task.task_id, arrival);
    waiting.get(task.task_id)?.(arrival);
  });
  const server = createServer((request, response) => void handle(request, response));
  const port = Number(env('OMNIMEDIA_CALLBACK_PORT') ?? 0);
  await new Promise<void>((done) => server.listen(port, offline ? '127.0.0.1' : '0.0.0.0', done));
  const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks/omnimedia`;
  return {
    server,
    url: offline ? local : (env('OMNIMEDIA_CALLBACK_URL') ?? local),
    next: (taskId) => {
      const already = arrived.get(taskId);
      return already ? Promise.resolve(already) : new Promise((done) => waiting.set(taskId, done));
    },
  };
}

// ---- Helpers ---------------------------------------------------------------------------

/** Print each change of status and each new attempt while a wait polls. */
function progress(label: string): NonNullable<WaitOptions['onProgress']> {
  let last = '';
  let attemptsSeen = 0;
  return (task, { elapsedMs, polls }) => {
    const attempts = task.attempts ?? [];
    for (const attempt of attempts.slice(attemptsSeen)) {
      const detail = attempt.status === 'failed' ? `failed (${attempt.fail_reason ?? 'no reason given'}) — the service retries` : attempt.status;
      say(`   ${label}: attempt ${attempt.attempt_no ?? '?'} at ${attempt.provider ?? '?'} ${detail}`);
    }
    attemptsSeen = attempts.length;
    if (task.status !== last) {
      say(`   ${label}: ${task.status.padEnd(10)} (poll ${polls}, ${(elapsedMs / 1000).toFixed(1)} s into the wait)`);
      last = task.status;
    }
  };
}

/** Download every result of a task into outDir (`<task id>-<n>.<ext>`), streamed, with progress. */
async function download(task: TaskResult): Promise<string[]> {
  const reported = new Set<number>();
  return client.files.download(task, {
    to: outDir,
    onProgress: ({ index, loaded, total }) => {
      if (total !== undefined && loaded === total && !reported.has(index)) {
        reported.add(index);
        say(`   downloaded ${index + 1}/${task.data?.length ?? 1}: ${(total / 1024).toFixed(1)} KB`);
      }
    },
  });
}

const size = async (path: string) => `${((await stat(path)).size / 1024).toFixed(1)} KB`;
const show = (path: string) => relative(process.cwd(), path) || path;

// ---- The story -------------------------------------------------------------------------

const receiver = await startReceiver();
const callbacksOn = offline || env('OMNIMEDIA_CALLBACK_URL') !== undefined;
const summary: { step: string; task: TaskResult; files: string[] }[] = [];

try {
  step(1, 'Upload a photo');
  const photo = await client.uploads.image(photoPath, {
    onProgress: ({ loaded, total }) => loaded === total && say(`   sent ${loaded} of ${total} bytes`),
  });
  say(`   ${photo.filename}: ${photo.content_type}, ${photo.width}x${photo.height}, ${photo.bytes} bytes`);
  say(`   url valid until ${new Date((photo.expires_at ?? 0) * 1000).toISOString()}`);

  step(2, 'Edit it');
  const edited = await client.images
    .edit({ model: imageModel, prompt: 'the same scene at night, lit by lanterns', image: photo, size: '1024x1024' })
    .wait({ ...cadence, onProgress: progress('edit') });
  const editedFiles = await download(edited);
  summary.push({ step: 'image edit', task: edited, files: editedFiles });
  say(`   done: ${editedFiles.map(show).join(', ')}`);

  step(3, 'Generate a video from both images');
  say('   references: the uploaded photo, and the edited file (uploaded first, automatically)');
  if (callbacksOn) say(`   callback_url: ${receiver.url}`);
  else say('   (no callback: set OMNIMEDIA_CALLBACK_URL to a public address of this machine to receive one)');
  // Offline, the mock fails the first attempt on purpose, to show the service retrying elsewhere.
  mock?.mock.failNextAttempt('provider_timeout');
  const submission = client.videos.generate({
    prompt: 'the lanterns flicker on as night falls',
    images: [photo, fileFromPath(editedFiles[0]!)],
    seconds: 4,
    resolution: '1080p',
    ...(callbacksOn ? { callback_url: receiver.url } : {}),
  });
  const submitted = await submission;
  say(`   submitted ${submitted.task_id}: ${submitted.status}, billed as ${submitted.normalized_model ?? '?'}`);

  step(4, 'Wait for it, with progress');
  const video = await submission.wait({ ...cadence, onProgress: progress('video') });
  const waitEnded = performance.now();
  say(`   ${video.status} after ${video.attempt_count} attempt(s), ${video.total_elapsed_s} s of work`);

  if (callbacksOn) {
    step(5, 'Receive the completion callback');
    const { task, at } = await Promise.race([
      receiver.next(video.task_id),
      new Promise<never>((_, fail) => setTimeout(() => fail(new Error('no callback within 60 s')), 60_000).unref()),
    ]);
    const after = waitEnded - at;
    say(`   POST ${new URL(receiver.url).pathname}: ${task.task_id} ${task.status}, token checked, verified against the task query`);
    say(
      after >= 0
        ? `   the wait ended ${Math.round(after)} ms after it arrived (a verified callback ends it at once; polling is the fallback)`
        : `   polling saw the end ${(-after / 1000).toFixed(1)} s before the callback arrived`,
    );
  }

  step(callbacksOn ? 6 : 5, 'Download the results');
  const videoFiles = await download(video);
  summary.push({ step: 'video from images', task: video, files: videoFiles });
  for (const file of videoFiles) say(`   ${show(file)} (${await size(file)})`);

  console.log(`\n${clock()}  ── Summary\n`);
  for (const { step: name, task, files } of summary) {
    const attempts = (task.attempts ?? []).map((a) => `${a.provider}:${a.status}${a.fail_reason ? `(${a.fail_reason})` : ''}`).join(' → ');
    console.log(`  ${name.padEnd(18)} ${task.task_id}  ${task.status}  ${task.normalized_model ?? task.model ?? ''}`);
    console.log(`  ${''.padEnd(18)} attempts ${attempts}; ${task.elapsed_s} s (total ${task.total_elapsed_s} s); cost ${task.total_cost}`);
    for (const file of files) console.log(`  ${''.padEnd(18)} → ${show(file)} (${await size(file)})`);
  }
  console.log(`\n  Files are in ${show(outDir)}/. Done in ${clock().trim()}.`);
} catch (error) {
  console.error(`\ndemo failed: ${error instanceof OmniMediaError ? `${error.name}: ${error.message}` : String(error)}`);
  process.exitCode = 1;
} finally {
  receiver.server.closeAllConnections();
  receiver.server.close();
  await mock?.close();
}
