// The runtimes guide states each bundle's size once, in the table of "Size and load time";
// where a page repeats a size it is the table's. The table against the measurement:
// `node bench/suites/size.ts --check`.
import { describe, expect, it } from 'vitest';
import { SIZE_TABLE_PAGE, statedSizes } from '../../bench/suites/stated-sizes.ts';
import { read } from '../helpers/docs.ts';

describe('the bundle sizes the documentation states', () => {
  const table = statedSizes(read(SIZE_TABLE_PAGE));

  it('has a figure for each bundle the size bench measures', () => {
    expect(Object.keys(table).sort()).toEqual(['ai-sdk', 'client', 'tasks']);
  });

  it('repeats them in the prose as the table says', () => {
    const tasks = /a page that imports only it\s+bundles to ([\d.]+) KB gzip/.exec(read('docs/waiting.md'))?.[1];
    const provider = /own code is ([\d.]+) KB gzip/.exec(read(SIZE_TABLE_PAGE))?.[1];
    expect(tasks && Number(tasks)).toBe(table.tasks);
    expect(provider && Number(provider)).toBe(table['ai-sdk']);
  });
});
