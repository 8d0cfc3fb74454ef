// The documentation's two facts, each written once: the repository's URL (package.json's
// `repository`, which the registry shows) and the list of guides (the README's "Guides", one
// line each, in reading order). The site's navigation, the docs tests and the site check in CI
// read them from here, so a guide is added by adding its file and one line to the README.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository's root directory. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `https://github.com/<owner>/<name>`, from package.json's `repository.url`. */
export function repositoryURL(): string {
  const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { repository?: { url?: string } | string };
  const raw = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
  if (!raw) throw new Error('package.json has no repository.url');
  return raw.replace(/^git\+/, '').replace(/\.git$/, '');
}

/** Where a file of the main branch is shown: `<repository>/blob/main/<path>`. */
export const blobURL = (path: string) => `${repositoryURL()}/blob/main/${path}`;

export interface Guide {
  /** The link's text: the guide's title. */
  title: string;
  /** Its file under docs/, without `.md`. */
  page: string;
  /** What the README says it is for. */
  summary: string;
}

/** The guides, as the README's "Guides" section lists them: `- [Title](<repository>/blob/main/docs/<page>.md): summary`. */
export function guides(readme = readFileSync(`${ROOT}README.md`, 'utf8')): Guide[] {
  const start = readme.indexOf('\n## Guides\n');
  if (start === -1) throw new Error('the README has no "## Guides" section');
  const section = readme.slice(start + 1).split(/\n## /)[0] ?? '';
  const prefix = blobURL('docs/').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const line = new RegExp(`^- \\[([^\\]]+)\\]\\(${prefix}([\\w-]+)\\.md\\): (.+)$`);
  const list: Guide[] = [];
  for (const text of section.split('\n')) {
    const match = line.exec(text);
    if (match) list.push({ title: match[1]!, page: match[2]!, summary: match[3]! });
  }
  return list;
}

/**
 * A link as the site writes it: a guide's absolute URL (in the README, included as the site's
 * home page, and in the doc comments the API reference shows) becomes the site's own page.
 */
export function siteHref(href: string): string {
  const docs = blobURL('docs/');
  return href.startsWith(docs) ? `/${href.slice(docs.length)}` : href;
}
