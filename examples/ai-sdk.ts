// The AI SDK with omnimedia: `generateImage` and `experimental_generateVideo` on the typed
// client (local validation, uploads, its polling and retry rules), and the AI SDK's `webhook`
// option ending a video generation with the service's completion callback.
//
//   npm run build
//   OMNIMEDIA_API_KEY=... OMNIMEDIA_BASE_URL=... PUBLIC_URL=https://your.host node examples/ai-sdk.ts
//
// PUBLIC_URL is where the service can reach this script's webhook endpoint (default: the local
// address, which is enough for the mock service: `npx omnimedia mock`).
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { experimental_generateVideo as generateVideo, generateImage } from 'ai';
import { createOmniMedia, type OmniMediaImageMetadata, type OmniMediaVideoMetadata } from 'omnimedia/ai-sdk';

const omni = createOmniMedia(); // OMNIMEDIA_API_KEY and OMNIMEDIA_BASE_URL from the environment
const out = process.env.OMNIMEDIA_DEMO_OUT ?? 'out';
await mkdir(out, { recursive: true });

// 1. Two images in one task: the bytes, and the task in providerMetadata.
const { images, calls } = await generateImage({ model: omni.image('omni-image'), prompt: 'a lighthouse at dawn', size: '1536x1024', n: 2 });
const record = calls[0]!.providerMetadata!.omnimedia as OmniMediaImageMetadata;
for (const [i, image] of images.entries()) await writeFile(join(out, `lighthouse-${i}.png`), image.uint8Array);
console.log(`images: task ${record.task_id}, ${images.length} PNGs, cost ${record.total_cost}, ${record.attempt_count} attempt(s)`);

// 2. A webhook endpoint, as the AI SDK's `webhook` option wants it: each call makes a URL and
//    a promise of the first delivery to it. The provider verifies the delivery with the service
//    (one task query) before it ends the generation, and polls meanwhile in case none comes.
type Delivery = { headers: Record<string, string>; body: string };
const deliveries = new Map<string, (delivery: Delivery) => void>();
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    // By path: with a callbackSecret the client adds its token to the URL's query.
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const deliver = deliveries.get(path);
    deliveries.delete(path);
    res.writeHead(deliver ? 200 : 404, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (!deliver) return;
    console.log(`webhook: delivery for ${(JSON.parse(body) as { task_id?: string }).task_id}`);
    deliver({ headers: req.headers as Record<string, string>, body });
  });
});
await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1', resolve));
const publicUrl = process.env.PUBLIC_URL ?? `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
let hooks = 0;
const webhook = async () => {
  const path = `/hooks/video-${++hooks}`;
  return { url: `${publicUrl}${path}`, received: new Promise<Delivery>((resolve) => deliveries.set(path, resolve)) };
};

// 3. Image to video from the first image (uploaded first), ended by the completion callback.
try {
  const { video, providerMetadata, warnings } = await generateVideo({
    model: omni.video('omni_flash'),
    prompt: { image: images[0]!.uint8Array, text: 'the lighthouse at night, waves rolling in' },
    duration: 4,
    resolution: '1280x720',
    webhook,
  });
  const task = providerMetadata.omnimedia as OmniMediaVideoMetadata;
  await writeFile(join(out, 'lighthouse.mp4'), video.uint8Array);
  console.log(`video: task ${task.task_id} (${task.normalized_model}), ${video.uint8Array.byteLength} bytes, cost ${task.total_cost}`);
  for (const warning of warnings) console.log('warning:', warning);
} finally {
  server.close();
}
