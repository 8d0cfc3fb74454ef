// Generate an image and wait for it.
//
//   npm run build
//   OMNIMEDIA_API_KEY=... OMNIMEDIA_BASE_URL=... node examples/generate-image.ts "a lighthouse at dawn"
import { OmniMedia, TaskFailedError } from 'omnimedia';

const client = new OmniMedia(); // OMNIMEDIA_API_KEY and OMNIMEDIA_BASE_URL from the environment
const prompt = process.argv[2] ?? 'a lighthouse at dawn, watercolour';

try {
  const task = await client.images
    .generate({ model: process.env.OMNIMEDIA_IMAGE_MODEL ?? 'omni-image', prompt, size: '1536x1024', n: 2 })
    .wait({ onProgress: (t, { polls }) => console.log(`poll ${polls}: ${t.status}`) });
  for (const output of task.data ?? []) console.log(output.url);
  console.log(`${task.attempt_count} attempt(s), ${task.elapsed_s} s, cost ${task.total_cost}`);
} catch (error) {
  if (error instanceof TaskFailedError) console.error(`task ${error.taskId} failed: ${error.failReason}`);
  throw error;
}
