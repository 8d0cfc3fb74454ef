import { IMAGE_QUALITIES } from './constants.ts';
import { MAX_IMAGE_PROMPT_LENGTH, callbackUrl, enumOf, model, prompt } from './fields.ts';
import { imageSizeProblem } from './image-size.ts';
import { either, filled, list, object, optional, rule, text } from './rules.ts';

const uploadedImage = filled('an uploaded image URL');
const uploadedImages = list(uploadedImage, 'a list', 'must hold at least one image');

/** The fields both image bodies share. */
const imageOptions = {
  size: optional(text('a string such as "1024x1024" or "auto"', imageSizeProblem)),
  n: optional(rule<number>((value) => ([1, 2, 3, 4].includes(value as number) ? undefined : 'must be an integer from 1 to 4'))),
  quality: optional(enumOf(IMAGE_QUALITIES)),
  callback_url: optional(callbackUrl),
};

/** The JSON body of `POST /v1/images/generations`. */
export const IMAGE_GENERATE_RULE = object({ model, prompt: prompt(MAX_IMAGE_PROMPT_LENGTH), ...imageOptions });

/** The JSON body of `POST /v1/images/edits`, once every image is an uploaded URL. */
export const IMAGE_EDIT_RULE = object({
  model,
  prompt: prompt(MAX_IMAGE_PROMPT_LENGTH),
  image: either<string | string[]>('an uploaded image URL or a list of them', (value) =>
    typeof value === 'string' ? uploadedImage : Array.isArray(value) ? uploadedImages : undefined,
  ),
  mask: optional(uploadedImage),
  ...imageOptions,
});
