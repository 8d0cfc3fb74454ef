// The AI SDK's install line names the `ai` major the provider is tested with and the Node it
// needs: on Node 20 a bare `npm install omnimedia ai` installed ai 6, whose generateImage
// refused the provider's models ("Unsupported model version v4"), and the guide never said.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { codeBlocks, read, ROOT, section } from '../helpers/docs.ts';

const ai = JSON.parse(readFileSync(join(ROOT, 'node_modules/ai/package.json'), 'utf8')) as { version: string; engines: { node: string } };
const major = ai.version.split('.')[0];
const nodeMajor = /^>=\s*(\d+)/.exec(ai.engines.node)?.[1];

it("docs/ai-sdk.md's install line pins the tested ai major and names the Node it needs", () => {
  const install = codeBlocks('docs/ai-sdk.md')
    .filter((b) => b.info === 'sh')
    .flatMap((b) => b.code.split('\n'))
    .find((line) => line.startsWith('npm install'));
  expect(install).toMatch(new RegExp(`^npm install omnimedia ai@${major}\\b`));
  expect(install).toContain(`Node ${nodeMajor} or later`);
});

it("the README's Node 20 paragraph says the AI SDK does not work there as npm installs it", () => {
  const runtimes = section(read('README.md'), '## Runtimes');
  const node20 = runtimes.slice(runtimes.indexOf('**Node 20**'));
  expect(node20).toContain(`\`ai@${Number(major) - 1}\``);
  expect(node20).toContain('UnsupportedModelVersionError');
  expect(node20).toContain(`Node ${nodeMajor}`);
});
