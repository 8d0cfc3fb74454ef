// The user documentation as the docs tests read it: the README and the guides of docs/ (the
// site's home page, docs/index.md, only includes the README), their code blocks and headings.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../docs/.vitepress/guides.ts';

export { ROOT };

/** The README and every guide, by their path from the repository's root. */
export function documentationFiles(): string[] {
  const guides = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md') && name !== 'index.md')
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...guides];
}

export const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

export interface CodeBlock {
  /** `README.md:42`: the file and the line of the block's first code line. */
  where: string;
  /** The fence's info string: `ts`, `ts runnable`, `ts fragment`, `sh`... */
  info: string;
  code: string;
}

/** Every fenced block of a Markdown text. */
/** A block's file name where the tests save it: `docs/waiting.md:12` as `docs-waiting-md-12.ts`. */
export const blockFileName = (block: CodeBlock) => `${block.where.replace(/[^\w]+/g, '-')}.ts`;

export function codeBlocks(path: string, markdown = read(path)): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  for (const match of markdown.matchAll(/^```(.*)\n([\s\S]*?)^```$/gm)) {
    const line = markdown.slice(0, match.index).split('\n').length + 1;
    blocks.push({ where: `${path}:${line}`, info: (match[1] ?? '').trim(), code: match[2] ?? '' });
  }
  return blocks;
}

/** The text from a heading (`## Options`) to the next heading of the same or a higher level. */
export function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`no heading "${heading}"`);
  const level = heading.split(' ')[0]!;
  const rest = markdown.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return end === -1 ? rest : rest.slice(0, end);
}

/** The headings of a Markdown text (outside code blocks), as written after the #s. */
export function headings(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced && /^#{1,6} /.test(line)) out.push(line.replace(/^#+ /, '').trim());
  }
  return out;
}

/** The heading as text: code spans, emphasis and links as their words. */
const plain = (heading: string) => heading.replace(/`([^`]*)`/g, '$1').replace(/\*\*?([^*]+)\*\*?/g, '$1').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
export const githubSlug = (heading: string) =>
  plain(heading)
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** VitePress's anchor of a heading (@mdit-vue's slugify): runs of punctuation and spaces one hyphen. */
export const siteSlug = (heading: string) =>
  plain(heading)
    .normalize('NFKD')
    .replace(/[\u0300-\u036F]/g, '')
    .replace(/[\u0000-\u001f]/g, '')
    .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toLowerCase();
