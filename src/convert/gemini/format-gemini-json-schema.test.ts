import { describe, expect, it } from 'vitest';
import { formatGeminiJsonSchema } from './format-gemini-json-schema.js';

describe('formatGeminiJsonSchema', () => {
  it('turns what zodResponseFormat writes (definitions, #/definitions refs, nullable, $schema) into the subset Gemini reads', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        home: { $ref: '#/definitions/place' },
        away: { $ref: '#/definitions/place' },
        note: { type: 'string', nullable: true },
        tags: { type: 'array', items: { type: ['string', 'number'], nullable: true } },
        anything: { nullable: true, description: 'no type' },
      },
      required: ['home', 'away', 'note'],
      additionalProperties: false,
      definitions: { place: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    };
    expect(formatGeminiJsonSchema(schema)).toEqual({
      type: 'object',
      properties: {
        home: { $ref: '#/$defs/place' },
        away: { $ref: '#/$defs/place' },
        note: { type: ['string', 'null'] },
        tags: { type: 'array', items: { type: ['string', 'number', 'null'] } },
        anything: { anyOf: [{ description: 'no type' }, { type: 'null' }] },
      },
      required: ['home', 'away', 'note'],
      additionalProperties: false,
      $defs: { place: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    });
  });

  it('leaves a schema already in that subset, property names and values alone', () => {
    const schema = { type: 'object', properties: { $schema: { type: 'string', enum: ['nullable', '#/definitions/x'] }, nullable: { type: 'boolean', default: true } }, $defs: {} };
    expect(formatGeminiJsonSchema(schema)).toEqual(schema);
  });
});
