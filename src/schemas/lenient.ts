import * as z from 'zod/mini';
import { readAnswer, type AnswerShape } from './tolerant.ts';

/**
 * The zod schema of an answer of the service, read tolerantly by its shape (see tolerant.ts and
 * answers.ts): what the SDK does with it, for callers who validate with zod.
 */
export function answerSchema<T>(shape: AnswerShape): z.ZodMiniType<T> {
  return z.transform((input: unknown, ctx) => {
    const read = readAnswer(input, shape);
    if ('value' in read) return read.value as T;
    for (const { field, message } of read.problems) ctx.issues.push({ code: 'custom', message, input, path: field ? [field] : [] });
    return z.NEVER;
  }) as unknown as z.ZodMiniType<T>;
}
