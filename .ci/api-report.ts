// The API report: what each public entry of the package exports, as api-extractor reads the
// built declarations, checked in under api/. `node .ci/api-report.ts` (CI) fails when the
// built API differs from the report, so an export is added, removed or changed on purpose;
// `node .ci/api-report.ts --update` rewrites the report after a deliberate change.
// Run after `npm run build`.
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const update = process.argv.includes('--update');
const ENTRIES: Record<string, string> = {
  omnimedia: 'dist/index.d.ts',
  'omnimedia-tasks': 'dist/tasks.d.ts',
  'omnimedia-redis': 'dist/redis.d.ts',
  'omnimedia-proxy': 'dist/proxy.d.ts',
  'omnimedia-otel': 'dist/otel.d.ts',
  'omnimedia-schemas': 'dist/schemas.d.ts',
  'omnimedia-testing': 'dist/testing.d.ts',
  'omnimedia-testing-msw': 'dist/testing-msw.d.ts',
  'omnimedia-ai-sdk': 'dist/ai-sdk.d.ts',
  'omnimedia-resources': 'dist/resources.d.ts',
  'omnimedia-coordination': 'dist/coordination.d.ts',
  'omnimedia-mcp': 'dist/mcp.d.ts',
  'omnimedia-bullmq': 'dist/bullmq.d.ts',
  'omnimedia-react': 'dist/react.d.ts',
};

/**
 * The report with every union of literals sorted: the compiler prints an inferred union in the
 * order it met the members, which differs between machines and says nothing about the API.
 */
function normalized(path: string): string {
  return readFileSync(path, 'utf8').replace(/(?:(?:-?\d+(?:\.\d+)?|"[^"]*"|'[^']*')(?: \| |(?=[>;,)\]\s])))+/g, (union) => {
    const members = union.trim().split(' | ');
    return members.length > 1 ? `${members.sort().join(' | ')}${union.endsWith(' ') ? ' ' : ''}` : union;
  });
}

let failed = false;
for (const [name, declarations] of Object.entries(ENTRIES)) {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: `<projectFolder>/${declarations}`,
      compiler: {
        overrideTsconfig: {
          compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', lib: ['ES2024', 'DOM', 'DOM.Iterable'], types: ['node'], strict: true, skipLibCheck: true },
          files: [declarations],
        },
      },
      apiReport: { enabled: true, reportFileName: `${name}.api.md`, reportFolder: '<projectFolder>/api/', reportTempFolder: '<projectFolder>/.api-tmp/' },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // The report is about the shape of the API; TypeDoc (npm run docs) checks the comments.
        extractorMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: `${root}package.json`,
  });
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
  const changed =
    result.apiReportChanged &&
    !(existsSync(config.reportTempFilePath) && existsSync(config.reportFilePath) && normalized(config.reportTempFilePath) === normalized(config.reportFilePath));
  if (changed && !update) {
    console.error(`api/${name}.api.md: the built API differs from the report. If the change is deliberate, run: npm run build && node .ci/api-report.ts --update`);
    failed = true;
  } else if (existsSync(config.reportFilePath) && readFileSync(config.reportFilePath, 'utf8').includes('(undocumented)')) {
    // Every declaration and member has a doc comment (test/docs/documented.test.ts says which lacks one).
    console.error(`api/${name}.api.md: an item is marked (undocumented); document it (npx vitest run test/docs/documented.test.ts lists them)`);
    failed = true;
  } else if (result.errorCount > 0) {
    console.error(`${name}: api-extractor failed (${result.errorCount} errors)`);
    failed = true;
  } else console.log(`${name}: the API matches api/${name}.api.md`);
}
process.exitCode = failed ? 1 : 0;
