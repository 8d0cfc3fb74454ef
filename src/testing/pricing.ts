// What a task is billed as. The spec reports the matched billing specification in
// `normalized_model` (e.g. `omni_flash_1080p_8s`) and an integer `total_cost` whose unit it does
// not give; the mock's price list below is invented, stable and documented, not the service's.

const VIDEO_RATE_PER_SECOND: Record<string, number> = { '720p': 10, '1080p': 20, '4K': 40 };
/** Video edits are billed as if the source were this long: the mock does not read its duration. */
const EDIT_BILLED_SECONDS = 5;

/** `omni_flash_1080p_8s` for generation, `omni_flash_edit_720p` for edits (edits take no seconds). */
export function normalizedModel(model: string, resolution: string, seconds: string | undefined): string {
  const base = `${model}_${resolution.toLowerCase()}`;
  return seconds === undefined ? base : `${base}_${seconds}s`;
}

export function videoCost(resolution: string, seconds: string | undefined): number {
  return (VIDEO_RATE_PER_SECOND[resolution] ?? 10) * (seconds === undefined ? EDIT_BILLED_SECONDS : Number(seconds));
}

/** 4 per megapixel-ish image (at least 1), doubled for `high` quality, times `n`. */
export function imageCost(width: number, height: number, quality: string, n: number): number {
  const perImage = Math.max(1, Math.ceil((width * height) / 262_144));
  return perImage * (quality === 'high' ? 2 : 1) * n;
}
