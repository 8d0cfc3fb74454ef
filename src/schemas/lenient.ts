import * as z from 'zod/mini';

/** A response field that may be absent or null: the spec does not promise either way. */
export const nullish = <T extends z.core.SomeType>(schema: T) => z.optional(z.nullable(schema));
