// Builds the studio's page (`npx omnimedia studio`, src/studio/page/) into static files:
// dist/studio/index.html, app.css and app.js. Called by `npm run build` after tsup; the tests
// call buildStudioPage() into a directory of their own. React and the browser client are
// bundled into app.js (React is a devDependency: the package gains no runtime dependency), so
// the page loads nothing from anywhere but the studio. The budget is DESIGN 15's: app.js at most
// 100 KB gzip (the build fails past it). React's API comes from Preact (preact/compat, a
// devDependency): react-dom 19 and the browser client alone were 100,257 bytes gzip, over the
// budget before the page's first line; with Preact the whole page is about a third of it.
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PAGE = join(ROOT, 'src/studio/page');
/** DESIGN 15: the page's JavaScript, gzip. */
export const STUDIO_JS_BUDGET = 100 * 1024;

/** The package's own entries, from source, with the browser twins (as its `browser` build). */
const ENTRIES: Record<string, string> = {
  omnimedia: 'src/index.ts',
  'omnimedia/tasks': 'src/tasks.ts',
  'omnimedia/react': 'src/react/index.ts',
};

const ownEntries: Plugin = {
  name: 'omnimedia-entries',
  setup(context) {
    context.onResolve({ filter: /^omnimedia(\/|$)/ }, (args) => {
      const file = ENTRIES[args.path];
      if (!file) return { errors: [{ text: `the studio page may use ${Object.keys(ENTRIES).join(', ')} (not ${args.path})` }] };
      return { path: join(ROOT, file) };
    });
    // The browser twins (tsup.config.ts's browserTwins): Node-only modules replaced.
    context.onResolve({ filter: /^\.{1,2}\/.*\.ts$/ }, async (args) => {
      const twin = resolve(dirname(args.importer), args.path).replace(/\.ts$/, '.browser.ts');
      try {
        await readFile(twin);
        return { path: twin };
      } catch {
        return undefined;
      }
    });
  },
};

/** What was built: the directory and app.js's size, raw and gzip. */
export interface StudioPageBuild {
  dir: string;
  bytes: number;
  gzipBytes: number;
}

/** Build the page into `outDir` (default dist/studio/). Fails when app.js is over its budget. */
export async function buildStudioPage(outDir = join(ROOT, 'dist/studio')): Promise<StudioPageBuild> {
  await mkdir(outDir, { recursive: true });
  const result = await build({
    entryPoints: [join(PAGE, 'main.ts')],
    outfile: join(outDir, 'app.js'),
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    define: { 'process.env.NODE_ENV': '"production"' },
    alias: { react: 'preact/compat', 'react-dom/client': 'preact/compat/client', 'react-dom': 'preact/compat', 'react/jsx-runtime': 'preact/jsx-runtime' },
    plugins: [ownEntries],
    legalComments: 'none',
    write: true,
    metafile: false,
    logLevel: 'warning',
  });
  if (result.errors.length > 0) throw new Error(result.errors.map((e) => e.text).join('\n'));
  await copyFile(join(PAGE, 'index.html'), join(outDir, 'index.html'));
  await copyFile(join(PAGE, 'app.css'), join(outDir, 'app.css'));
  const js = await readFile(join(outDir, 'app.js'));
  const gzipBytes = gzipSync(js, { level: 9 }).length;
  if (gzipBytes > STUDIO_JS_BUDGET) throw new Error(`studio app.js is ${gzipBytes} bytes gzip, over its budget of ${STUDIO_JS_BUDGET}`);
  return { dir: outDir, bytes: js.length, gzipBytes };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = await buildStudioPage(process.argv[2]);
  console.log(`studio page: ${built.dir}/app.js ${built.bytes} bytes, ${built.gzipBytes} gzip (budget ${STUDIO_JS_BUDGET})`);
}
