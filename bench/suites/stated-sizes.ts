// The sizes the "Size and load time" table of the runtimes guide states, in KB (1,000 bytes) of
// gzip -9, by the size bench's entry names: read by `size.ts --check` (against the measurement)
// and by test/docs/sizes.test.ts (against the prose that repeats them).

/** The page whose table states them, from the repository's root. */
export const SIZE_TABLE_PAGE = 'docs/runtimes.md';

/** The table row of each measured bundle: a phrase its first cell holds. */
const ROWS = {
  tasks: 'a page that follows tasks',
  client: 'the whole client',
  'ai-sdk': "the AI SDK provider's own code",
} as const;

export function statedSizes(page: string): Partial<Record<keyof typeof ROWS, number>> {
  const out: Partial<Record<keyof typeof ROWS, number>> = {};
  for (const line of page.split('\n')) {
    const [, first, size] = line.split('|').map((cell) => cell.trim());
    for (const [name, phrase] of Object.entries(ROWS) as [keyof typeof ROWS, string][]) {
      const figure = first?.startsWith(phrase) ? /^([\d.]+) KB$/.exec(size ?? '')?.[1] : undefined;
      if (figure) out[name] = Number(figure);
    }
  }
  return out;
}
