import { IMAGE_QUALITIES, MAX_IMAGE_PROMPT_LENGTH, MAX_IMAGES_PER_REQUEST } from './constants.ts';
import { callbackUrl, enumOf, model, prompt } from './fields.ts';
import { IMAGE_SIZE_PATTERN, imageSizeProblem } from './image-size.ts';
import { either, filled, integerFrom, list, object, optional, text } from './rules.ts';

const uploadedImage = filled('an uploaded image URL');
const uploadedImages = list(uploadedImage, 'a list', 'must hold at least one image');

/** The fields both image bodies share. */
const imageOptions = {
  size: optional(text('a string such as "1024x1024" or "auto"', imageSizeProblem, { pattern: IMAGE_SIZE_PATTERN })),
  n: optional(integerFrom(1, MAX_IMAGES_PER_REQUEST)),
  quality: optional(enumOf(IMAGE_QUALITIES)),
  callback_url: optional(callbackUrl),
};

/** The JSON body of `POST /v1/images/generations`. */
export const IMAGE_GENERATE_RULE = object({ model, prompt: prompt(MAX_IMAGE_PROMPT_LENGTH), ...imageOptions });

/** The JSON body of `POST /v1/images/edits`, once every image is an uploaded URL. */
export const IMAGE_EDIT_RULE = object({
  model,
  prompt: prompt(MAX_IMAGE_PROMPT_LENGTH),
  image: either<string | string[]>(
    'an uploaded image URL or a list of them',
    (value) => (typeof value === 'string' ? uploadedImage : Array.isArray(value) ? uploadedImages : undefined),
    [uploadedImage, uploadedImages],
  ),
  mask: optional(uploadedImage),
  ...imageOptions,
});
