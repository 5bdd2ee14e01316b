import { describe, expect, it } from 'vitest';
import { formatAnthropicOutputSchema } from './format-anthropic-output-schema.js';

describe('formatAnthropicOutputSchema', () => {
  it('moves the constraints Anthropic refuses into descriptions and closes every object', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        score: { type: 'integer', minimum: 1, maximum: 10 },
        summary: { type: 'string', description: 'One line.', maxLength: 280, minLength: 1 },
        tags: { type: 'array', items: { type: 'string', format: 'hostname' }, minItems: 2, maxItems: 5, uniqueItems: true },
        one: { type: 'array', items: { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, code: { type: 'string', format: 'iso-3166' } } }, minItems: 1 },
      },
      required: ['score', 'summary'],
    };
    const { value, warnings } = formatAnthropicOutputSchema(schema);
    expect(value).toEqual({
      type: 'object',
      properties: {
        score: { type: 'integer', description: '{minimum: 1, maximum: 10}' },
        summary: { type: 'string', description: 'One line.\n\n{maxLength: 280, minLength: 1}' },
        tags: { type: 'array', items: { type: 'string', format: 'hostname' }, description: '{minItems: 2, maxItems: 5, uniqueItems: true}' },
        one: { type: 'array', items: { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, code: { type: 'string', description: '{format: "iso-3166"}' } }, additionalProperties: false }, minItems: 1 },
      },
      required: ['score', 'summary'],
      additionalProperties: false,
    });
    expect(warnings).toEqual(['output schema: minimum, maximum, maxLength, minLength, minItems, maxItems, uniqueItems, format moved into descriptions (Anthropic refuses them)']);
  });

  it('turns OpenAPI nullable into a null type and walks $defs, anyOf and refs alike', () => {
    const schema = {
      type: 'object',
      properties: { home: { $ref: '#/$defs/Place' }, note: { type: 'string', nullable: true }, either: { anyOf: [{ type: 'number', multipleOf: 0.5 }, { type: 'null' }] } },
      $defs: { Place: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false } },
    };
    expect(formatAnthropicOutputSchema(schema)).toEqual({
      value: {
        type: 'object',
        properties: { home: { $ref: '#/$defs/Place' }, note: { type: ['string', 'null'] }, either: { anyOf: [{ type: 'number', description: '{multipleOf: 0.5}' }, { type: 'null' }] } },
        $defs: { Place: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false } },
        additionalProperties: false,
      },
      warnings: ['output schema: multipleOf moved into descriptions (Anthropic refuses them)'],
    });
  });

  it('says so when an object allowed other properties, and leaves a schema Anthropic takes as it was, without warnings', () => {
    const open = formatAnthropicOutputSchema({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'number' } });
    expect(open.value).toEqual({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false });
    expect(open.warnings).toEqual(['output schema: additionalProperties set to false on every object (Anthropic requires it)']);
    const strict = { type: 'object', properties: { a: { type: 'string', enum: ['x', 'y'] }, b: { type: 'array', items: { type: 'integer' }, minItems: 0 } }, required: ['a', 'b'], additionalProperties: false };
    expect(formatAnthropicOutputSchema(strict)).toEqual({ value: strict, warnings: [] });
  });

  it('keeps property names that look like keywords, and enum and const values, untouched', () => {
    const schema = { type: 'object', properties: { minimum: { type: 'number', const: 3 }, format: { type: 'string', enum: ['maxLength'] } }, additionalProperties: false };
    expect(formatAnthropicOutputSchema(schema)).toEqual({ value: schema, warnings: [] });
  });
});
