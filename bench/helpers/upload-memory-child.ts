// One measurement of bench/suites/upload-memory.ts, in a fresh process: upload one file from
// its path to the loopback sink and report the peak RSS growth over the RSS just before.
// argv: <variant> <file> <baseURL>
import { openAsBlob } from 'node:fs';
import ky from 'ky';
import { OmniMedia } from 'omnimedia';

const [variant, file, baseURL] = process.argv.slice(2) as [string, string, string];
const url = `${baseURL}/v1/uploads/videos`;
const client = new OmniMedia({ apiKey: 'bench-key', baseURL, logLevel: 'off' });

async function upload(path: string): Promise<number> {
  if (variant === 'omnimedia') return Number((await client.uploads.video(path)).bytes);
  const form = new FormData();
  form.append('file', new File([await openAsBlob(path)], 'clip.mp4', { type: 'video/mp4' }));
  const headers = { authorization: 'Bearer bench-key' };
  if (variant === 'fetch') return ((await (await fetch(url, { method: 'POST', body: form, headers })).json()) as { bytes: number }).bytes;
  if (variant === 'fetch-redirect-error')
    return ((await (await fetch(url, { method: 'POST', body: form, headers, redirect: 'error' })).json()) as { bytes: number }).bytes;
  if (variant === 'ky-noretry-redirect-error') return (await ky.post(url, { body: form, headers, retry: 0, redirect: 'error' }).json<{ bytes: number }>()).bytes;
  if (variant === 'ky') return (await ky.post(url, { body: form, headers }).json<{ bytes: number }>()).bytes;
  throw new Error(`unknown variant ${variant}`);
}

// Warm up with a tiny upload so that fetch, ky and the SDK are loaded before the baseline.
await upload(process.argv[5] as string);
const before = process.memoryUsage.rss();
const maxBefore = process.resourceUsage().maxRSS * 1024;
let sampled = before;
const timer = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage.rss())), 1);
const sent = await upload(file);
clearInterval(timer);
const maxAfter = process.resourceUsage().maxRSS * 1024;
// maxRSS is the lifetime peak: it counts only if the upload raised it; else the sampled peak.
const peak = Math.max(sampled, maxAfter > maxBefore ? maxAfter : 0);
process.send?.({ growthMiB: (peak - before) / 2 ** 20, sent });
