import type * as z from 'zod/mini';
import { IMAGE_EDIT_RULE, IMAGE_GENERATE_RULE } from './image-rules.ts';
import type { ImageQuality } from './images.ts';
import { objectSchema } from './rule-schema.ts';

/**
 * The JSON body of `POST /v1/images/generations`, checked by the rules the client runs (same
 * paths, same messages). Unknown fields pass through.
 *
 * @example
 * ```ts
 * import * as z from 'zod/mini';
 * import { ImageGenerateParamsSchema } from 'omnimedia/schemas';
 * const checked = z.safeParse(ImageGenerateParamsSchema, await request.json());
 * ```
 */
export const ImageGenerateParamsSchema: z.ZodMiniObject<
  {
    model: z.ZodMiniType<string, string>;
    prompt: z.ZodMiniType<string, string>;
    size: z.ZodMiniOptional<z.ZodMiniType<string, string>>;
    n: z.ZodMiniOptional<z.ZodMiniType<number, number>>;
    quality: z.ZodMiniOptional<z.ZodMiniType<ImageQuality, ImageQuality>>;
    callback_url: z.ZodMiniOptional<z.ZodMiniType<string, string>>;
  },
  z.core.$loose
> = objectSchema(IMAGE_GENERATE_RULE);

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
export const ImageEditBodySchema: z.ZodMiniObject<
  {
    model: z.ZodMiniType<string, string>;
    prompt: z.ZodMiniType<string, string>;
    image: z.ZodMiniType<string | string[], string | string[]>;
    mask: z.ZodMiniOptional<z.ZodMiniType<string, string>>;
    size: z.ZodMiniOptional<z.ZodMiniType<string, string>>;
    n: z.ZodMiniOptional<z.ZodMiniType<number, number>>;
    quality: z.ZodMiniOptional<z.ZodMiniType<ImageQuality, ImageQuality>>;
    callback_url: z.ZodMiniOptional<z.ZodMiniType<string, string>>;
  },
  z.core.$loose
> = objectSchema(IMAGE_EDIT_RULE);
