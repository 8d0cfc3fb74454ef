// One source: the tools' schemas and descriptions come from the request rules' own constants. A
// limit changed there (here by mocking the constants module) changes the listed schema, its
// description and the check the tool runs, together.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ValidationError } from 'omnimedia';
import { IMAGE_GENERATE_RULE } from '../../src/schemas/image-rules.ts';
import { parseInput } from '../../src/validation/parse.ts';
import { call, startHarness, submissions, textOf, type Harness } from './helpers.ts';

vi.mock('../../src/schemas/constants.ts', async (importOriginal) => ({
  ...(await importOriginal<Record<string, unknown>>()),
  MAX_IMAGES_PER_REQUEST: 8,
  MAX_IMAGE_PROMPT_LENGTH: 100,
  MAX_REFERENCE_IMAGES: 5,
  IMAGE_QUALITIES: ['low', 'high', 'ultra'],
}));

let harness: Harness;
afterEach(async () => {
  await harness?.close();
});

describe('a limit changed in the rules', () => {
  it('changes the listed schema and description, and the check the tool runs', async () => {
    harness = await startHarness();
    const mcp = await harness.connect();
    const { tools } = await mcp.listTools();
    const schema = (name: string) => tools.find((t) => t.name === name)?.inputSchema as { properties: Record<string, Record<string, unknown>> };
    expect(schema('generate_image').properties.n).toMatchObject({ type: 'integer', minimum: 1, maximum: 8, description: 'How many images, 1 to 8; default 1.' });
    expect(schema('generate_image').properties.prompt).toMatchObject({ maxLength: 100, description: 'What the image shows; at most 100 characters.' });
    expect(schema('edit_image').properties.quality).toMatchObject({ enum: ['low', 'high', 'ultra'] });
    expect(schema('generate_video').properties.images).toMatchObject({ maxItems: 5 });
    expect(tools.find((t) => t.name === 'generate_video')?.description).toContain('up to 5 reference images');

    expect(() => parseInput(IMAGE_GENERATE_RULE, { model: 'm', prompt: 'p', n: 8, quality: 'ultra' }, 'body')).not.toThrow();
    expect(() => parseInput(IMAGE_GENERATE_RULE, { model: 'm', prompt: 'p', n: 9 }, 'body')).toThrow(ValidationError);
    const refused = await call(mcp, 'generate_image', { model: 'm', prompt: 'x'.repeat(101), n: 9 });
    expect(textOf(refused)).toContain('prompt: must be at most 100 characters (got 101); n: must be an integer from 1 to 8');
    expect(submissions(harness.mock)).toBe(0);
  });
});
