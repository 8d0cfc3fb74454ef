import { describe, expect, it } from 'vitest';
import { imageSizeProblem } from 'omnimedia/schemas';
import { IMAGE_SIZE_PATTERN } from '../../src/schemas/image-size.ts';

describe('imageSizeProblem', () => {
  it.each(['auto', '1024x1024', '1536x1024', '1024x1536', '2048x2048', '3840x2160', '2160x3840', '1024x640', '3840x1280', '1280x3840'])(
    '%s is accepted',
    (size) => expect(imageSizeProblem(size)).toBeUndefined(),
  );

  it.each([
    ['1000x1000', 'both sides must be multiples of 16 (got 1000x1000)'],
    ['1024x1000', 'both sides must be multiples of 16 (got 1024x1000)'],
    ['4096x1024', 'the longer side must be at most 3840 (got 4096)'],
    ['1024x4096', 'the longer side must be at most 3840 (got 4096)'],
    ['3856x1280', 'the longer side must be at most 3840 (got 3856)'],
    ['3840x1264', 'the aspect ratio must be at most 3:1 (got 3840x1264)'],
    ['640x640', 'the pixel count must be 655,360 to 8,294,400 (got 409,600)'],
    ['1008x640', 'the pixel count must be 655,360 to 8,294,400 (got 645,120)'],
    ['0x0', 'the pixel count must be 655,360 to 8,294,400 (got 0)'],
    ['AUTO', 'must be "auto" or "WIDTHxHEIGHT", e.g. "1024x1024"'],
    ['1024X1024', 'must be "auto" or "WIDTHxHEIGHT", e.g. "1024x1024"'],
    [' 1024x1024', 'must be "auto" or "WIDTHxHEIGHT", e.g. "1024x1024"'],
    ['1024x1024.0', 'must be "auto" or "WIDTHxHEIGHT", e.g. "1024x1024"'],
    ['', 'must be "auto" or "WIDTHxHEIGHT", e.g. "1024x1024"'],
  ])('%s → %s', (size, problem) => expect(imageSizeProblem(size)).toBe(problem));

  it('the pixel bounds are inclusive: 655,360 and 8,294,400 exactly', () => {
    expect(1024 * 640).toBe(655_360);
    expect(3840 * 2160).toBe(8_294_400);
    expect(imageSizeProblem('1024x640')).toBeUndefined();
    expect(imageSizeProblem('3840x2160')).toBeUndefined();
  });

  it('checks each side for the multiple of 16, the width as the height', () => {
    expect(imageSizeProblem('1000x1024')).toBe('both sides must be multiples of 16 (got 1000x1024)');
    expect(imageSizeProblem('1032x1024')).toBe('both sides must be multiples of 16 (got 1032x1024)');
  });

  it('caps the pixels too: 3840x2176 keeps the side and ratio rules but is 8,355,840 pixels', () => {
    expect(imageSizeProblem('3840x2176')).toBe('the pixel count must be 655,360 to 8,294,400 (got 8,355,840)');
    expect(imageSizeProblem('2176x3840')).toBe('the pixel count must be 655,360 to 8,294,400 (got 8,355,840)');
  });

  it('a 3:1 ratio exactly is accepted, a hair over it is not', () => {
    expect(imageSizeProblem('2304x768')).toBeUndefined();
    expect(imageSizeProblem('2320x768')).toBe('the aspect ratio must be at most 3:1 (got 2320x768)');
  });

  it('IMAGE_SIZE_PATTERN (a JSON Schema `pattern`): auto or WIDTHxHEIGHT, whole', () => {
    const pattern = new RegExp(IMAGE_SIZE_PATTERN);
    expect(['auto', '1024x1024', '0x0'].map((size) => pattern.test(size))).toEqual([true, true, true]);
    expect(['AUTO', 'auto ', '1024x1024x1', '123456x1', ''].map((size) => pattern.test(size))).toEqual([false, false, false, false, false]);
  });
});

