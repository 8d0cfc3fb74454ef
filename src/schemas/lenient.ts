import * as z from 'zod/mini';

type Shape = Record<string, z.core.SomeType>;

/** `input` without the `null`s of the given keys (only when it is a plain object). */
function withoutNulls(input: unknown, keys: readonly string[]): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  let out: Record<string, unknown> | undefined;
  for (const key of keys) {
    if ((input as Record<string, unknown>)[key] !== null) continue;
    out ??= { ...(input as Record<string, unknown>) };
    delete out[key];
  }
  return out ?? input;
}

/**
 * An object the service sends, read leniently: unknown fields are kept at run time
 * (`looseObject`), and an `optional` field that is `null` on the wire reads as absent, so no
 * `| null` reaches users (the spec promises neither null nor absence). `required` fields are
 * taken as given.
 */
export function answerObject<R extends Shape, O extends Shape>(required: R, optional: O) {
  const optionalKeys = Object.keys(optional);
  const shape = { ...required } as Record<string, z.core.SomeType>;
  for (const key of optionalKeys) shape[key] = z.exactOptional(optional[key] as z.core.SomeType);
  return z.pipe(
    z.transform((input: unknown) => withoutNulls(input, optionalKeys)),
    z.looseObject(shape as R & { [K in keyof O]: z.ZodMiniExactOptional<O[K]> }),
  );
}
