// The request rules: the issues (path and message) the client reports before any request, and
// the same issues from the zod schemas of omnimedia/schemas, which are built from the same rules.
import * as z from 'zod/mini';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ValidationError, type ValidationIssue } from 'omnimedia';
import type { ImageQuality, VideoMessage, VideoSeconds } from 'omnimedia/schemas';
import { ImageEditBodySchema, ImageGenerateParamsSchema, VideoEditBodySchema, VideoGenerateBodySchema } from 'omnimedia/schemas';
import { IMAGE_EDIT_RULE, IMAGE_GENERATE_RULE } from '../../src/schemas/image-rules.ts';
import type { Rule } from '../../src/schemas/rules.ts';
import { VIDEO_GENERATE_RULE } from '../../src/schemas/video-rules.ts';
import { parseInput } from '../../src/validation/parse.ts';
import { BODIES, CASES, M } from './request-cases.ts';

/** What the client reports: the issues of the `ValidationError` (none when the body passes). */
function clientIssues(rule: Rule<unknown, unknown>, input: unknown): ValidationIssue[] {
  try {
    parseInput(rule, input, 'body');
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return [...error.issues];
  }
}

/** What zod reports, with the path written as the client writes it. */
function zodIssues(schema: z.core.$ZodType, input: unknown): ValidationIssue[] {
  const result = z.safeParse(schema, input);
  if (result.success) return [];
  return result.error.issues.map(({ path, message }) => ({
    path: path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i ? '.' : ''}${String(key)}`)).join(''),
    message,
  }));
}

describe('request rules: every broken rule named by its field, the client and omnimedia/schemas alike', () => {
  it.each(CASES.map((c, i) => [i, ...c] as const))('%i: %s', (_i, body, input, expected) => {
    const [rule, schema] = BODIES[body]!;
    const issues = expected.map(([path, message]) => ({ path, message }));
    expect(clientIssues(rule, input)).toEqual(issues);
    expect(zodIssues(schema, input)).toEqual(issues);
  });
});

describe('request rules: what is sent', () => {
  it('seconds as a number or its string is sent as the string; unknown fields pass through, in place', () => {
    const body = { model: 'm', messages: M, seconds: 8, extra: { kept: [1] } };
    const sent = parseInput(VIDEO_GENERATE_RULE, body, 'body');
    expect(sent).toEqual({ ...body, seconds: '8' });
    expect(Object.keys(sent)).toEqual(Object.keys(body));
    expect(body.seconds).toBe(8); // the caller's object is not changed
    expect(parseInput(VIDEO_GENERATE_RULE, { ...body, seconds: '4' }, 'body').seconds).toBe('4');
    expect(z.parse(VideoGenerateBodySchema, body)).toEqual({ ...body, seconds: '8' });
  });

  it('a body that passes is sent as given', () => {
    const body = { model: 'm', prompt: 'p', image: ['u'], mask: 'v', size: '1024x1024', queue: 'fast' };
    expect(parseInput(IMAGE_EDIT_RULE, body, 'body')).toEqual(body);
    expect(z.parse(ImageEditBodySchema, body)).toEqual(body);
  });

  it('the issues found earlier come first, and the error names the context', () => {
    const error = (() => {
      try {
        parseInput(IMAGE_GENERATE_RULE, { model: 'm', prompt: '' }, 'images.generate params', [{ path: 'image', message: 'earlier' }]);
      } catch (e) {
        return e as ValidationError;
      }
    })();
    expect(error?.issues).toEqual([
      { path: 'image', message: 'earlier' },
      { path: 'prompt', message: 'must not be empty' },
    ]);
    expect(error?.message).toBe('Invalid images.generate params: image: earlier; prompt: must not be empty');
  });
});

describe('omnimedia/schemas: zod objects, as before', () => {
  it('can be extended and picked like any zod object', () => {
    expect(ImageGenerateParamsSchema._zod.def.type).toBe('object');
    const Extended = z.extend(ImageGenerateParamsSchema, { user: z.string() });
    expect(z.safeParse(Extended, { model: 'm', prompt: 'p' }).success).toBe(false);
    expect(z.parse(Extended, { model: 'm', prompt: 'p', user: 'u' })).toEqual({ model: 'm', prompt: 'p', user: 'u' });
    expect(Object.keys(VideoEditBodySchema._zod.def.shape)).toEqual(['model', 'messages', 'input_video', 'seconds', 'aspect_ratio', 'resolution', 'callback_url']);
  });

  it('types: what a schema takes and what it gives, field by field', () => {
    type Generate = typeof VideoGenerateBodySchema;
    expectTypeOf<z.input<Generate>['seconds']>().toEqualTypeOf<VideoSeconds | undefined>();
    expectTypeOf<z.output<Generate>['seconds']>().toEqualTypeOf<'4' | '6' | '8' | '10' | undefined>();
    expectTypeOf<z.output<Generate>['messages']>().toEqualTypeOf<VideoMessage[]>();
    expectTypeOf<z.output<typeof ImageGenerateParamsSchema>['quality']>().toEqualTypeOf<ImageQuality | undefined>();
    expectTypeOf<z.input<typeof ImageEditBodySchema>['image']>().toEqualTypeOf<string | string[]>();
  });
});
