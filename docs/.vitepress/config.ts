// The documentation site (VitePress): the README as its home page, the guides of docs/ in the
// order the README's "Guides" lists them, and the API reference TypeDoc writes into docs/api/
// (`npm run docs:api`, which `npm run docs` and `npm run docs:build` run first). Local search,
// no request to any other host at build or read time.
import { existsSync, readFileSync } from 'node:fs';
import { defineConfig, type DefaultTheme } from 'vitepress';
import { guides, repositoryURL, ROOT, siteHref } from './guides.ts';

const API_SIDEBAR = `${ROOT}docs/api/typedoc-sidebar.json`;
if (!existsSync(API_SIDEBAR)) throw new Error('docs/api/ is missing: run `npm run docs:api` first (npm run docs and docs:build do)');
const api = JSON.parse(readFileSync(API_SIDEBAR, 'utf8')) as DefaultTheme.SidebarItem[];
const repository = repositoryURL();

export default defineConfig({
  title: 'omnimedia',
  description: 'The typed TypeScript client for the asynchronous image and video generation service',
  // Served from a sub-path (GitHub Pages' /omnimedia/, say) when DOCS_BASE says so.
  base: process.env.DOCS_BASE ?? '/',
  lang: 'en',
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: `${process.env.DOCS_BASE ?? '/'}favicon.svg` }]],
  // The local search index (all pages, the API reference's too) is one lazy chunk of ~850 kB, loaded when the search opens.
  vite: { build: { chunkSizeWarningLimit: 1200 } },
  lastUpdated: false,
  // A dead link between pages fails the build; anchors are checked by .ci/check-docs-site.ts.
  ignoreDeadLinks: false,
  markdown: {
    config(md) {
      // The README links guides by their absolute repository URL (it is read on the registry and in
      // node_modules); on the site, those links go to the site's own pages.
      md.core.ruler.push('repository-links', (state) => {
        for (const token of state.tokens) {
          for (const child of token.children ?? []) {
            const href = child.type === 'link_open' ? child.attrGet('href') : null;
            if (href) child.attrSet('href', siteHref(href));
          }
        }
      });
    },
  },
  themeConfig: {
    search: { provider: 'local' },
    nav: [
      { text: 'Guides', link: `/${guides()[0]?.page ?? ''}` },
      { text: 'API reference', link: '/api/' },
      { text: 'Changelog', link: `${repository}/blob/main/CHANGELOG.md` },
    ],
    sidebar: [
      {
        text: 'Guides',
        items: [{ text: 'Start here (the README)', link: '/' }, ...guides().map((g) => ({ text: g.title, link: `/${g.page}` }))],
      },
      { text: 'API reference', link: '/api/', collapsed: true, items: api },
    ],
    outline: { level: [2, 3] },
    socialLinks: [{ icon: 'github', link: repository }],
  },
});
