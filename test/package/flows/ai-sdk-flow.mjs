// The AI SDK flow against the mock: an image and a video through the provider, and its errors
// as the app's own classes. Throws on any deviation; returns a one-line summary.
export async function runAiSdkFlow({ omnimedia, createOmniMedia, generateImage, generateVideo }, baseURL, runtime) {
  const { OmniMedia, ValidationError } = omnimedia;
  const check = (condition, what) => {
    if (!condition) throw new Error(`${runtime} ai-sdk: ${what}`);
  };
  globalThis.AI_SDK_LOG_WARNINGS = false;
  const omni = createOmniMedia({ baseURL, apiKey: 'sk-test-packaging' });
  check(omni.client instanceof OmniMedia, 'the provider’s client is the app’s OmniMedia');

  const image = await generateImage({ model: omni.image('omni-image'), prompt: 'a lighthouse', n: 2 });
  check(image.images.length === 2 && image.images[0].mediaType === 'image/png', 'two PNG images');
  check(typeof image.calls[0].providerMetadata.omnimedia.task_id === 'string', 'the task id in providerMetadata');

  const video = await generateVideo({ model: omni.video('omni_flash'), prompt: 'a paper boat', duration: 4, poll: { intervalMs: 200 } });
  check(new TextDecoder().decode(video.video.uint8Array.subarray(4, 8)) === 'ftyp', 'an MP4 video as bytes');

  // A value with no mapping: the provider's ValidationError is the one the app imports.
  const invalid = await generateVideo({ model: omni.video('omni_flash'), prompt: 'x', duration: 5 }).catch((e) => e);
  check(invalid instanceof ValidationError && invalid.issues[0].path === 'duration', 'duration 5 is the app’s ValidationError');
  return `ok ${runtime}: omnimedia/ai-sdk image ${image.calls[0].providerMetadata.omnimedia.task_id}, video ${video.providerMetadata.omnimedia.task_id}`;
}
