// What the request rules say of themselves as JSON Schema (the agents' tool schemas are built
// from it): never stricter than the rule (every valid fixture passes), and refusing every invalid
// fixture but those whose rule JSON Schema cannot state. Validated by the MCP SDK's own validator.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describe, expect, it } from 'vitest';
import type { JsonSchemaType } from '@modelcontextprotocol/sdk/validation/types.js';
import { jsonSchemaOf } from '../../src/schemas/rule-json.ts';
import { BODIES, CASES } from './request-cases.ts';

const validator = new AjvJsonSchemaValidator();

/** Rules JSON Schema cannot state: what only the rule (and so the tool) refuses. */
const BEYOND_JSON_SCHEMA = [
  /^both sides must be multiples of 16/, // and the ratio, the pixel count
  /^may reference at most \d+ images/, // image parts counted across messages
  /^must be an absolute http\(s\) URL$/, // a scheme JSON Schema would only approximate
];

describe("the rules' JSON Schema against the SDK's request fixtures", () => {
  it.each(CASES.map((c, i) => [i, ...c] as const))('%i: %s', (_i, body, input, issues) => {
    const [rule] = BODIES[body]!;
    const check = validator.getValidator(jsonSchemaOf(rule) as JsonSchemaType);
    const { valid } = check(input === undefined ? null : input);
    if (issues.length === 0) expect(valid).toBe(true);
    else if (issues.every(([, message]) => BEYOND_JSON_SCHEMA.some((pattern) => pattern.test(message)))) expect(valid).toBe(true);
    else expect(valid).toBe(false);
  });

  it('states the limits: n, prompt length, blank prompts, enums, seconds as number or string', () => {
    const [generate] = BODIES['image generation']!;
    const properties = (jsonSchemaOf(generate) as { properties: Record<string, unknown> }).properties;
    expect(properties.n).toEqual({ type: 'integer', minimum: 1, maximum: 4 });
    expect(properties.prompt).toEqual({ type: 'string', pattern: '\\S', maxLength: 4000 });
    expect(properties.quality).toEqual({ type: 'string', enum: ['low', 'medium', 'high', 'auto'] });
    const [video] = BODIES['video generation']!;
    expect((jsonSchemaOf(video) as { properties: Record<string, unknown> }).properties.seconds).toEqual({ enum: [4, 6, 8, 10, '4', '6', '8', '10'] });
    expect((jsonSchemaOf(video) as { required: string[] }).required).toEqual(['model', 'messages']);
  });
});
