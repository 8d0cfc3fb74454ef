import * as z from 'zod/mini';
import { IMAGE_QUALITIES } from './constants.ts';
import { MAX_IMAGE_PROMPT_LENGTH, callbackUrlSchema, enumSchema, modelSchema, mustBe, promptSchema } from './fields.ts';
import { imageSizeProblem } from './image-size.ts';

const sizeSchema = z.string(mustBe('a string such as "1024x1024" or "auto"')).check(
  z.superRefine((value, ctx) => {
    const problem = imageSizeProblem(value);
    if (problem) ctx.issues.push({ code: 'custom', input: value, message: problem });
  }),
);

const nSchema = z.int(mustBe('an integer from 1 to 4')).check(
  z.gte(1, 'must be an integer from 1 to 4'),
  z.lte(4, 'must be an integer from 1 to 4'),
);

/** @internal The fields both image schemas share. */
export const imageOptionsShape = {
  size: z.optional(sizeSchema),
  n: z.optional(nSchema),
  quality: z.optional(enumSchema(IMAGE_QUALITIES)),
  callback_url: z.optional(callbackUrlSchema),
};

/**
 * The JSON body of `POST /v1/images/generations`. Unknown fields pass through.
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { ImageGenerateParamsSchema } from 'omnimedia/schemas';
 * const checked = z.safeParse(ImageGenerateParamsSchema, await request.json());
 * ```
 */
export const ImageGenerateParamsSchema = z.looseObject({
  model: modelSchema,
  prompt: promptSchema(MAX_IMAGE_PROMPT_LENGTH),
  ...imageOptionsShape,
});

/**
 * The JSON body of `POST /v1/images/edits`, once every image is an uploaded URL.
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { ImageEditBodySchema } from 'omnimedia/schemas';
 * const result = z.safeParse(ImageEditBodySchema, { model: 'omni-image', prompt: 'night', image: uploadUrl });
 * ```
 */
export const ImageEditBodySchema = z.looseObject({
  model: modelSchema,
  prompt: promptSchema(MAX_IMAGE_PROMPT_LENGTH),
  image: z.union(
    [
      z.string().check(z.minLength(1, 'must not be empty')),
      z.array(z.string(mustBe('an uploaded image URL')).check(z.minLength(1, 'must not be empty'))).check(
        z.minLength(1, 'must hold at least one image'),
      ),
    ],
    mustBe('an uploaded image URL or a list of them'),
  ),
  mask: z.optional(z.string(mustBe('an uploaded image URL')).check(z.minLength(1, 'must not be empty'))),
  ...imageOptionsShape,
});
