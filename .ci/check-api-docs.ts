// `npm run docs` then this: every public export of 'omnimedia' has a TSDoc comment with an
// @example (read from TypeDoc's JSON output, so it sees exactly what the reference shows).
import { readFileSync } from 'node:fs';

interface Comment {
  summary?: { text: string }[];
  blockTags?: { tag: string }[];
}
interface Reflection {
  name: string;
  kind: number;
  comment?: Comment;
  signatures?: Reflection[];
  children?: Reflection[];
}

const project = JSON.parse(readFileSync(new URL('../docs/api/api.json', import.meta.url), 'utf8')) as Reflection;
const comments = (r: Reflection): Comment[] => [r.comment, ...(r.signatures ?? []).map((s) => s.comment)].filter((c) => c !== undefined);
// One entry point: its exports are the project's children; several: one module per entry point.
const MODULE = 2;
// A name exported by two entry points is documented once; the other is a reference to it.
const REFERENCE = 4194304;
const exports = (project.children ?? []).flatMap((child) =>
  child.kind === MODULE ? (child.children ?? []).map((e) => ({ ...e, name: `${child.name}: ${e.name}` })) : [child],
).filter((e) => e.kind !== REFERENCE);
const missing: string[] = [];
for (const exported of exports) {
  const all = comments(exported);
  const documented = all.some((c) => (c.summary ?? []).some((part) => part.text.trim() !== ''));
  const example = all.some((c) => (c.blockTags ?? []).some((tag) => tag.tag === '@example'));
  if (!documented || !example) missing.push(`${exported.name}: ${documented ? '' : 'no description '}${example ? '' : 'no @example'}`.trim());
}
if (missing.length) {
  console.error(`Public exports without a description or an @example (${missing.length}):\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
console.log(`ok: ${exports.length} public exports, each documented with an example`);
