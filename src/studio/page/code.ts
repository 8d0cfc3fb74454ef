/**
 * "Copy as code": a journaled submission as a TypeScript program, a CLI line and a batch JSONL
 * line, each of which runs as copied (the body journaled is the service's, which the SDK, the CLI
 * and the batch all take: uploads are their URLs and ids by then). Under `--mock` each names the
 * mock's address and a key (any key works on the mock; never the studio's own).
 */
import type { StudioOperation } from '../journal.ts';

/** Where the copied code sends: the mock's address under `--mock`, else the shell's environment. */
export interface CodeTarget {
  baseURL?: string | undefined;
}

/** The mock accepts any non-empty key: this is not the studio's own. */
const MOCK_KEY = 'sk-mock';

const METHOD: Record<StudioOperation, string> = {
  'images.generate': 'images.generate',
  'images.edit': 'images.edit',
  'videos.generate': 'videos.generate',
  'videos.edit': 'videos.edit',
};

/** A TypeScript program (an ES module) that submits the same request, waits and downloads the results. */
export function typescriptOf(op: StudioOperation, params: Record<string, unknown>, target: CodeTarget): string {
  const client = target.baseURL
    ? `new OmniMedia({ apiKey: '${MOCK_KEY}', baseURL: ${JSON.stringify(target.baseURL)} }); // the studio's mock service`
    : 'new OmniMedia(); // OMNIMEDIA_API_KEY and OMNIMEDIA_BASE_URL from the environment';
  return [
    "import { OmniMedia } from 'omnimedia';",
    '',
    `const client = ${client}`,
    `const task = await client.${METHOD[op]}(${JSON.stringify(params, null, 2)}).wait();`,
    "const files = await client.files.download(task, { to: '.' });",
    'console.log(task.task_id, task.status, files);',
    '',
  ].join('\n');
}

/** A word for a POSIX shell: bare when it is safe, else single-quoted. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The text and image URLs of a video body's first message. */
function messageParts(params: Record<string, unknown>): { prompt: string; images: string[] } {
  const content = (params.messages as { content?: unknown }[] | undefined)?.[0]?.content;
  if (typeof content === 'string') return { prompt: content, images: [] };
  const parts = Array.isArray(content) ? (content as { type?: string; text?: string; image_url?: { url?: string } }[]) : [];
  return {
    prompt: parts.filter((part) => part.type === 'text').map((part) => part.text ?? '').join('\n'),
    images: parts.filter((part) => part.type === 'image_url').map((part) => part.image_url?.url ?? ''),
  };
}

/** `npx omnimedia ...`: the same request from a shell, waited for, its files downloaded to `.`. */
export function cliOf(op: StudioOperation, params: Record<string, unknown>, target: CodeTarget): string {
  const words: string[] = ['npx', 'omnimedia', ...op.split('.')];
  const flag = (name: string, value: unknown) => {
    if (value !== undefined && value !== null && value !== '') words.push(`--${name}`, shellWord(String(value)));
  };
  flag('model', params.model);
  if (op.startsWith('images')) {
    flag('prompt', params.prompt);
    const images = params.image;
    for (const url of Array.isArray(images) ? images : images === undefined ? [] : [images]) flag('image', url);
    flag('mask', params.mask);
    flag('size', params.size);
    flag('n', params.n);
    flag('quality', params.quality);
  } else {
    const { prompt, images } = messageParts(params);
    flag('prompt', prompt);
    for (const url of images) flag('image', url);
    flag('video', (params.input_video as { upload_id?: string } | undefined)?.upload_id);
    flag('seconds', params.seconds);
    flag('resolution', params.resolution);
    flag('aspect-ratio', params.aspect_ratio);
  }
  words.push('--wait', '--out', '.');
  const env = target.baseURL ? `OMNIMEDIA_BASE_URL=${shellWord(target.baseURL)} OMNIMEDIA_API_KEY=${MOCK_KEY} ` : '';
  return `${env}${words.join(' ')}`;
}

/** The command that runs a file of such lines (saved as `jobs.jsonl`), resumable, into `results/`. */
export function batchCommandOf(target: CodeTarget): string {
  const env = target.baseURL ? `OMNIMEDIA_BASE_URL=${shellWord(target.baseURL)} OMNIMEDIA_API_KEY=${MOCK_KEY} ` : '';
  return `${env}npx omnimedia batch jobs.jsonl --out results --download`;
}

/** One line of `omnimedia batch` (DESIGN 14): the job's id, its operation and the body as params. */
export function batchLineOf(id: string, op: StudioOperation, params: Record<string, unknown>): string {
  return JSON.stringify({ id, op, params });
}
