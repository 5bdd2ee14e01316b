import { describe, expect, it } from 'vitest';
import { expectGolden } from '../test-support/expect-golden.js';
import { parseGeminiResponse } from './parse-gemini-response.js';
import { readFixtureJson, readRecordedJson } from './test-support/read-recorded-chunks.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);
const cases: [name: string, body: () => unknown][] = [
  ['google-text', () => readRecordedJson('google-text')],
  ['google-tool-call', () => readRecordedJson('google-tool-call')],
  ['google-thinking', () => readFixtureJson('google-thinking.json')],
  ['google-blocked-prompt', () => readFixtureJson('google-blocked-prompt.json')],
];

describe('parseGeminiResponse', () => {
  for (const [name, body] of cases) {
    it(`parses the ${name} response into the golden canonical response`, () => {
      const actual = `${JSON.stringify(parseGeminiResponse(body()), null, 2)}\n`;
      expectGolden(goldenFolder, `parse-response-${name}.json`, actual);
    });
  }

  it('counts thoughts as output and cached tokens as part of the input', () => {
    const { usage } = parseGeminiResponse(readFixtureJson('google-thinking.json')).value;
    expect(usage).toMatchObject({ input: { total: 11, cacheRead: 8, cacheWrite: 0 }, output: { total: 263, reasoning: 251 } });
  });

  it('answers a body that is not a Gemini response with an error finish and a warning', () => {
    const { value, warnings } = parseGeminiResponse({ candidates: 'nope' });
    expect(value.finishReason).toEqual({ unified: 'error', raw: undefined });
    expect(warnings).toHaveLength(1);
  });

  it('warns that only the first of several candidates is carried', () => {
    const candidate = { content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: 'STOP' };
    expect(parseGeminiResponse({ candidates: [candidate, candidate] }).warnings).toEqual(['2 candidates: only the first is carried']);
  });
});
