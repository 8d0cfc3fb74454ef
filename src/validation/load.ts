/**
 * validation/: the schemas put to work, inputs checked into `ValidationError`s and answers into
 * `APIError`s, loaded lazily with zod (bundle.ts). Imports schemas/, errors.ts and internal/.
 */
// zod is loaded at the first validation, not at import: a cold `import('omnimedia')` would
// otherwise spend ~45 ms (Node 24) loading zod's modules before the caller does anything.
// Every validation happens inside an async call (before a request, or on its response), so
// awaiting the module there changes no behaviour. The public zod schemas live in
// `omnimedia/schemas` for callers who want them.

/** The schemas and parse helpers, as loaded. */
export type Validation = typeof import('./bundle.ts');

let loading: Promise<Validation> | undefined;

/** The validation module, loaded once. */
export function loadValidation(): Promise<Validation> {
  return (loading ??= import('./bundle.ts'));
}
