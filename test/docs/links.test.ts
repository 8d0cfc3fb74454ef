// The README reads in ten minutes and every link in it and in the guides leads somewhere, from
// GitHub, from the documentation site and from the registry's page or node_modules: the README
// stays at most 400 lines; a relative link names a file of the repository (and, in the README,
// one the package ships); a link into the repository (package.json's `repository`) names a file
// that exists; an anchor names a heading that GitHub and the site both give that anchor; the
// README's guide map lists exactly the guides of docs/; and no word of a document a user
// cannot open.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobURL, guides, repositoryURL } from '../../docs/.vitepress/guides.ts';
import { documentationFiles, githubSlug, headings, read, ROOT, siteSlug } from '../helpers/docs.ts';

/** Every Markdown link outside code (`[text](href)`), with its line. */
function links(path: string): { where: string; href: string }[] {
  const out: { where: string; href: string }[] = [];
  let fenced = false;
  read(path)
    .split('\n')
    .forEach((line, i) => {
      if (line.startsWith('```')) fenced = !fenced;
      if (fenced) return;
      const text = line.replace(/`[^`]*`/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) out.push({ where: `${path}:${i + 1}`, href: m[1]! });
      for (const m of text.matchAll(/<a href="([^"]+)"/g)) out.push({ where: `${path}:${i + 1}`, href: m[1]! });
    });
  return out;
}

const files = [...documentationFiles(), 'docs/index.md', 'CONTRIBUTING.md'];
const repository = repositoryURL();

/** The repository file a link names (relative to the page, or into the repository), or undefined for another site. */
function target(from: string, href: string): { path: string; anchor: string | undefined } | undefined {
  const [address = '', anchor] = href.split('#', 2);
  if (address.startsWith(`${repository}/`)) {
    const path = /^\/(?:blob|tree)\/main\/(.+)$/.exec(address.slice(repository.length))?.[1];
    return { path: path === undefined ? `(not a file of main: ${href})` : decodeURIComponent(path), anchor };
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(address)) return undefined;
  const dir = from.includes('/') ? from.slice(0, from.lastIndexOf('/')) : '';
  return { path: address === '' ? from : join(dir, decodeURIComponent(address)), anchor };
}

describe('the README and the guides', () => {
  it('the README is at most 400 lines', () => {
    const lines = read('README.md').split('\n').length;
    expect(lines).toBeLessThanOrEqual(400);
  });

  it('every link names a file of the repository, and every anchor a heading (on GitHub and on the site alike)', () => {
    const broken: string[] = [];
    let count = 0;
    for (const path of files) {
      for (const { where, href } of links(path)) {
        const to = target(path, href);
        if (!to) continue;
        count++;
        const file = join(ROOT, to.path);
        if (!existsSync(file)) {
          broken.push(`${where}: ${href}: no file ${to.path}`);
          continue;
        }
        if (to.anchor === undefined) continue;
        if (!statSync(file).isFile() || !to.path.endsWith('.md')) {
          broken.push(`${where}: ${href}: an anchor into ${to.path}, which is no Markdown page`);
          continue;
        }
        const found = headings(read(to.path)).find((h) => githubSlug(h) === to.anchor || siteSlug(h) === to.anchor);
        if (!found) broken.push(`${where}: ${href}: no heading in ${to.path} has the anchor #${to.anchor}`);
        else if (githubSlug(found) !== siteSlug(found))
          broken.push(`${where}: ${href}: "${found}" is #${githubSlug(found)} on GitHub but #${siteSlug(found)} on the site: reword it`);
      }
    }
    expect(broken).toEqual([]);
    expect(count).toBeGreaterThan(60);
  });

  it("the README's links work from the registry: absolute, or to a file the package ships", () => {
    const packed = (JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' })) as [{ files: { path: string }[] }])[0].files.map((f) => f.path);
    const relative = links('README.md').filter(({ href }) => !/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith('#'));
    expect(relative.filter(({ href }) => !packed.includes(href.split('#')[0]!.replace(/^\.\//, ''))).map((l) => `${l.where}: ${l.href}`)).toEqual([]);
    // What it names in the repository is on the main branch of package.json's repository.
    expect(links('README.md').filter(({ href }) => /github\.com/.test(href) && href !== repository && !href.startsWith(`${repository}/`))).toEqual([]);
  }, 60_000);

  it("the README's guide map lists every guide of docs/, once, and nothing else", () => {
    const listed = guides().map((g) => `docs/${g.page}.md`);
    expect(listed).toEqual([...new Set(listed)]);
    expect([...listed].sort()).toEqual(documentationFiles().filter((p) => p.startsWith('docs/')));
    for (const guide of guides()) expect(read(`docs/${guide.page}.md`).split('\n')[0], guide.page).toBe(`# ${guide.title}`);
    expect(blobURL('docs/waiting.md')).toBe(`${repository}/blob/main/docs/waiting.md`);
  });

  it('package.json says where the repository, its home page and its issues are', () => {
    const pkg = JSON.parse(read('package.json')) as { repository: { url: string }; homepage: string; bugs: { url: string } };
    expect(pkg.repository.url).toBe(`git+${repository}.git`);
    expect(pkg.homepage.startsWith(repository)).toBe(true);
    expect(pkg.bugs.url).toBe(`${repository}/issues`);
  });

  it('name no document a user cannot open', () => {
    const internal = /\bDESIGN\b|service-spec|\bissue \d+|\bthe issue\b|\bspec \d/;
    const found = files.flatMap((path) =>
      read(path)
        .split('\n')
        .map((line, i) => ({ where: `${path}:${i + 1}`, line }))
        .filter(({ line }) => internal.test(line)),
    );
    expect(found.map(({ where, line }) => `${where}: ${line.trim()}`)).toEqual([]);
  });
});
