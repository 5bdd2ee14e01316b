import { describe, expect, it } from 'vitest';
import { createGeminiPartialArgsAccumulator } from './accumulate-gemini-partial-args.js';

describe('createGeminiPartialArgsAccumulator', () => {
  it('writes nested objects, arrays and continued strings as JSON text that joins into the arguments', () => {
    const accumulator = createGeminiPartialArgsAccumulator();
    const pieces = [
      accumulator.push([{ jsonPath: '$.recipe.name', stringValue: 'Lasa', willContinue: true }]),
      accumulator.push([{ jsonPath: '$.recipe.name', stringValue: 'gna "al forno"' }]),
      accumulator.push([
        { jsonPath: '$.recipe.steps[0].text', stringValue: 'boil' },
        { jsonPath: '$.recipe.steps[0].minutes', numberValue: 10 },
      ]),
      accumulator.push([{ jsonPath: '$.recipe.steps[1].text', stringValue: 'bake', willContinue: true }]),
      accumulator.push([
        { jsonPath: '$.vegan', boolValue: false },
        { jsonPath: '$.note', nullValue: 'NULL_VALUE' },
        { jsonPath: "$['odd key']", stringValue: 'x' },
      ]),
      accumulator.finish(),
    ];
    expect(pieces[0]).toBe('{"recipe":{"name":"Lasa');
    expect(JSON.parse(pieces.join(''))).toEqual({
      recipe: { name: 'Lasagna "al forno"', steps: [{ text: 'boil', minutes: 10 }, { text: 'bake' }] },
      vegan: false,
      note: null,
      'odd key': 'x',
    });
  });

  it('closes to an empty object when no argument came', () => {
    expect(createGeminiPartialArgsAccumulator().finish()).toBe('{}');
  });
});
