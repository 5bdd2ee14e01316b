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

  it('gives id-less calls of an answer without responseId ids no other answer repeats', () => {
    const body = { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'a', args: {} } }, { functionCall: { name: 'b', args: {} } }] }, finishReason: 'STOP' }] };
    const idsOf = () => parseGeminiResponse(body).value.content.flatMap((part) => (part.type === 'tool-call' ? [part.id] : []));
    const first = idsOf();
    const second = idsOf();
    expect(first).toEqual([expect.stringMatching(/^call_[a-z0-9]{8}_0$/), expect.stringMatching(/^call_[a-z0-9]{8}_1$/)]);
    expect(new Set([...first, ...second]).size).toBe(4);
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

  const answer = (parts: unknown[], usageMetadata: unknown, extra: Record<string, unknown> = {}) => ({ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }], usageMetadata, ...extra });
  const prompt = { promptTokenCount: 12, totalTokenCount: 12 };

  it('reads a report without candidatesTokenCount after text as the input, its output left to the local count', () => {
    for (const usageMetadata of [prompt, { ...prompt, candidatesTokenCount: 0 }]) {
      const { value } = parseGeminiResponse(answer([{ text: 'Hello' }], usageMetadata));
      expect(value.usage).toBeUndefined();
      expect(value.inputUsage).toEqual({ input: { total: 12, cacheRead: 0, cacheWrite: 0 } });
    }
    const call = parseGeminiResponse(answer([{ functionCall: { name: 'lookup', args: { q: 'x' } } }], prompt)).value;
    expect({ usage: call.usage, inputUsage: call.inputUsage }).toEqual({ usage: undefined, inputUsage: { input: { total: 12, cacheRead: 0, cacheWrite: 0 } } });
  });

  it('keeps the thoughts such a report counted', () => {
    const { value } = parseGeminiResponse(answer([{ text: 'hm', thought: true }, { text: 'Answer.' }], { promptTokenCount: 11, thoughtsTokenCount: 198, totalTokenCount: 209 }));
    expect(value.usage).toBeUndefined();
    expect(value.inputUsage).toEqual({ input: { total: 11, cacheRead: 0, cacheWrite: 0 }, reasoning: 198 });
  });

  it('takes the prompt-only report of an empty answer, and the thoughts-only report of one that only thought, as its usage', () => {
    const empty = parseGeminiResponse(answer([{ text: '' }], prompt)).value;
    expect(empty.inputUsage).toBeUndefined();
    expect(empty.usage).toMatchObject({ input: { total: 12 }, output: { total: 0 } });
    const thought = parseGeminiResponse(answer([{ text: 'hm', thought: true }], { promptTokenCount: 11, thoughtsTokenCount: 198, totalTokenCount: 209 })).value;
    expect(thought.inputUsage).toBeUndefined();
    expect(thought.usage).toMatchObject({ output: { total: 198, reasoning: 198 } });
  });

  it('keeps the text of the candidates after the first for billing', () => {
    const candidate = (text: string) => ({ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP' });
    expect(parseGeminiResponse({ candidates: [candidate('one'), candidate('two'), candidate('three')] }).value.uncarriedOutput).toBe('twothree');
    expect(parseGeminiResponse({ candidates: [candidate('one')] }).value).not.toHaveProperty('uncarriedOutput');
  });
});
