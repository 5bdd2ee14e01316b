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

  // From the schema audit.
  it('walks tuples (`items` as a list, `additionalItems`) and closes a map node that names no type', () => {
    const schema = {
      type: 'object',
      properties: {
        pair: {
          type: 'array',
          items: [{ type: 'object', properties: { score: { type: 'number', minimum: 1 } } }, { type: 'string', maxLength: 3 }],
          additionalItems: { type: 'object', properties: { x: { type: 'string' } } },
        },
        labels: { additionalProperties: { type: 'string' } },
      },
      additionalProperties: false,
    };
    expect(formatAnthropicOutputSchema(schema).value).toEqual({
      type: 'object',
      properties: {
        pair: {
          type: 'array',
          items: [{ type: 'object', properties: { score: { type: 'number', description: '{minimum: 1}' } }, additionalProperties: false }, { type: 'string', description: '{maxLength: 3}' }],
          additionalItems: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: false },
        },
        labels: { additionalProperties: false },
      },
      additionalProperties: false,
    });
  });

  it('keeps minItems only at 0 or 1 (a number), turns oneOf into anyOf, and lets null answer a nullable enum', () => {
    expect(formatAnthropicOutputSchema({ type: 'array', items: { type: 'string' }, minItems: '1' }).value).toEqual({ type: 'array', items: { type: 'string' }, description: '{minItems: "1"}' });
    expect(formatAnthropicOutputSchema({ oneOf: [{ type: 'string' }, { type: 'integer' }] }).value).toEqual({ anyOf: [{ type: 'string' }, { type: 'integer' }] });
    expect(formatAnthropicOutputSchema({ type: 'string', enum: ['red', 'blue'], nullable: true }).value).toEqual({ type: ['string', 'null'], enum: ['red', 'blue', null] });
  });

  it('handles __proto__ properties, boolean schemas, $ref siblings, type lists, a root anyOf and keyword-like values', () => {
    const schema = JSON.parse(`{"anyOf":[{"properties":{"__proto__":{"type":"string","maxLength":2}, "b": true, "c": false, "r": {"$ref":"#/definitions/D","description":"x"}},"required":["__proto__"]},{"type":["object","null"],"properties":{}}],
      "definitions":{"D":{"type":"object","properties":{"n":{"type":"number","default":{"minimum":1},"examples":[{"maximum":2}],"enum":[1,2]}},"additionalProperties":{"type":"string"}}}}`);
    const { value, warnings } = formatAnthropicOutputSchema(schema) as { value: any; warnings: string[] };
    expect(Object.keys(value.anyOf[0].properties)).toEqual(['__proto__', 'b', 'c', 'r']);
    expect(Object.getOwnPropertyDescriptor(value.anyOf[0].properties, '__proto__')?.value).toEqual({ type: 'string', description: '{maxLength: 2}' });
    expect(value.anyOf[0].additionalProperties).toBe(false);
    expect(value.anyOf[0].properties.b).toBe(true);
    expect(value.anyOf[0].properties.r).toEqual({ $ref: '#/definitions/D', description: 'x' });
    expect(value.anyOf[1].additionalProperties).toBe(false);
    expect(value.definitions.D.additionalProperties).toBe(false);
    expect(value.definitions.D.properties.n).toEqual({ type: 'number', default: { minimum: 1 }, examples: [{ maximum: 2 }], enum: [1, 2] });
    expect(warnings).toHaveLength(2);
  });
});
