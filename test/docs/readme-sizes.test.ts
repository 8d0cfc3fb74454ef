// The README states each bundle's size once, in the table of "Size and load time"; where the
// prose repeats a size it is the table's (issue 26 found 16.5 KB in one place, 16.8 KB in
// another). The table against the measurement: `node bench/suites/size.ts --check`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readmeSizes } from '../../bench/suites/readme-sizes.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe("the README's bundle sizes", () => {
  it('has a figure for each bundle the size bench measures', () => {
    expect(Object.keys(readmeSizes(README)).sort()).toEqual(['ai-sdk', 'client', 'tasks']);
  });

  it('repeats them in the prose as the table says', () => {
    const table = readmeSizes(README);
    const tasks = /a page that imports only it bundles to ([\d.]+) KB gzip/.exec(README)?.[1];
    const provider = /own code is ([\d.]+) KB gzip/.exec(README)?.[1];
    expect(tasks && Number(tasks)).toBe(table.tasks);
    expect(provider && Number(provider)).toBe(table['ai-sdk']);
  });
});
