// How a page says to run its ```ts runnable blocks, read from its words, so that the tests run
// each block exactly as a reader would: the text before a page's first runnable block names
// the file to save it as (`example.mts`), the command (`node example.mts`), the install line
// (`npm install omnimedia ...`), the mock to start (`npx omnimedia mock ...`) and the variables
// to set (`OMNIMEDIA_BASE_URL=...`). The text between two runnable blocks may name another file
// (and its command) for the next one. Nothing else is added by the tests.
import { codeBlocks, read, type CodeBlock } from './docs.ts';

export interface RunInstruction {
  /** The name the page says to save the block as: `example.mts`, `quickstart.mjs`. */
  file: string;
  /** The command that runs it: `['node', 'example.mts']`. */
  command: string[];
  /** The install command: `['npm', 'install', 'omnimedia', 'ai@7']`. */
  install: string[];
  /** The mock service's command: `['npx', 'omnimedia', 'mock', '--port', '4010', '--samples', '.']`. */
  mock: string[];
  /** The variables the page says to set. */
  env: Record<string, string>;
}

export interface RunnableBlock {
  block: CodeBlock;
  /** How the page says to run it, or what its text lacks. */
  how: RunInstruction | { missing: string[] };
}

const words = (command: string) => command.trim().split(/\s+/);
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The page's text before `index` with code blocks other than `sh` ones removed (their words are no instructions). */
function prose(markdown: string, from: number, to: number): string {
  return markdown.slice(from, to).replace(/^```(.*)\n[\s\S]*?^```$/gm, (whole, info: string) => (/^sh\b/.test(info) ? whole : ''));
}

/** The first match of `pattern` in inline code or in a line of a `sh` block. */
function command(text: string, pattern: RegExp): string | undefined {
  const inline = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  const shell = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((m) => m[1]!.split('\n')).map((line) => line.replace(/\s+#.*$/, ''));
  return [...inline, ...shell].map((line) => line.trim()).find((line) => pattern.test(line));
}

function file(text: string): { file: string; command: string[] } | undefined {
  const saved = [...text.matchAll(/\bas `([\w.-]+\.(?:mts|mjs|cjs|cts|js|ts))`/g)].at(-1)?.[1];
  if (!saved) return undefined;
  const run = command(text, new RegExp(`^node (?:--[\\w-]+ )*${escape(saved)}$`));
  return run ? { file: saved, command: words(run) } : undefined;
}

/** Each ```ts runnable block of a page, with how the page says to run it. */
export function runnableBlocks(path: string, markdown = read(path)): RunnableBlock[] {
  const blocks = codeBlocks(path, markdown).filter((b) => /^ts\b/.test(b.info) && b.info.split(/\s+/).includes('runnable'));
  const out: RunnableBlock[] = [];
  let page: RunInstruction | undefined;
  let previousEnd = 0;
  for (const block of blocks) {
    const start = markdown.indexOf(`\n${block.code}`, previousEnd);
    const before = prose(markdown, 0, start);
    if (!page) {
      const saved = file(before);
      const install = command(before, /^npm install\b.*\bomnimedia\b/);
      const mock = command(before, /^npx omnimedia mock\b/);
      const env = Object.fromEntries([...before.matchAll(/\b(OMNIMEDIA_[A-Z_]+)=([^\s`]+)/g)].map((m) => [m[1]!, m[2]!]));
      const missing = [
        ...(saved ? [] : ['the file to save it as and the `node ...` command that runs it']),
        ...(install ? [] : ['an `npm install omnimedia ...` line']),
        ...(mock ? [] : ['an `npx omnimedia mock ...` command']),
        ...(env.OMNIMEDIA_BASE_URL && env.OMNIMEDIA_API_KEY ? [] : ['OMNIMEDIA_BASE_URL=... and OMNIMEDIA_API_KEY=...']),
      ];
      if (missing.length) {
        out.push({ block, how: { missing } });
        previousEnd = start + block.code.length;
        continue;
      }
      page = { ...saved!, install: words(install!), mock: words(mock!), env };
      out.push({ block, how: page });
    } else {
      // Another file named since the previous block applies to this one.
      const own = file(prose(markdown, previousEnd, start));
      out.push({ block, how: own ? { ...page, ...own } : page });
    }
    previousEnd = start + block.code.length;
  }
  return out;
}
