import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import { expectGolden } from '../test-support/expect-golden.js';
import { formatGeminiRequest } from './format-gemini-request.js';
import { readFixtureJson } from './test-support/read-recorded-chunks.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);
/** Each canonical fixture with the upstream model it is formatted for. */
const cases: [name: string, upstreamModel: string][] = [
  ['text', 'gemini-2.5-flash'],
  ['system-prompt', 'gemini-2.5-flash'],
  ['image-input', 'gemini-2.5-flash'],
  ['tool-round-trip', 'gemini-3-pro-preview'],
  ['parallel-tool-calls', 'gemini-3-pro-preview'],
  ['thinking-signature', 'gemini-2.5-pro'],
];

const base: CanonicalRequest = { model: 'm', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }], tools: [], stream: false };

describe('formatGeminiRequest', () => {
  for (const [name, upstreamModel] of cases) {
    it(`formats the canonical ${name} request for ${upstreamModel} into the golden body`, () => {
      const request = readFixtureJson(`canonical-request-${name}.json`) as CanonicalRequest;
      const actual = `${JSON.stringify(formatGeminiRequest(request, upstreamModel), null, 2)}\n`;
      expectGolden(goldenFolder, `format-request-${name}.json`, actual);
    });
  }

  it('names a tool result after its call when the result has no name', () => {
    const { value } = formatGeminiRequest(readFixtureJson('canonical-request-tool-round-trip.json') as CanonicalRequest, 'gemini-2.5-flash');
    const contents = value.contents as { parts: { functionResponse?: { name: string } }[] }[];
    expect(contents.at(-1)?.parts[0]?.functionResponse?.name).toBe('get_weather');
  });

  it('signs a replayed function call with the documented placeholder for Gemini 3 only', () => {
    const request: CanonicalRequest = {
      ...base,
      messages: [...base.messages, { role: 'assistant', content: [{ type: 'tool-call', id: 'call_1', name: 'f', arguments: '{}' }] }],
    };
    const part = (model: string) => (formatGeminiRequest(request, model).value.contents as { parts: Record<string, unknown>[] }[])[1]?.parts[0];
    expect(part('gemini-3-pro-preview')).toEqual({ functionCall: { id: 'call_1', name: 'f', args: {} }, thoughtSignature: 'skip_thought_signature_validator' });
    expect(part('gemini-2.5-flash')).toEqual({ functionCall: { id: 'call_1', name: 'f', args: {} } });
  });

  it('sends an effort as a thinking level to Gemini 3 and as a budget to Gemini 2.5', () => {
    const request: CanonicalRequest = { ...base, reasoning: { effort: 'low' } };
    expect(formatGeminiRequest(request, 'gemini-3-pro-preview').value.generationConfig).toEqual({ thinkingConfig: { thinkingLevel: 'LOW' } });
    const older = formatGeminiRequest(request, 'gemini-2.5-flash');
    expect(older.value.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 1024 } });
    expect(older.warnings).toEqual(['reasoning: effort "low" sent as thinkingBudget 1024 (gemini-2.5-flash takes no thinkingLevel)']);
  });

  it('sends no thinkingConfig to Gemini 2.0 and older, which refuse it, unless the channel says the model takes it', () => {
    const request: CanonicalRequest = { ...base, reasoning: { budgetTokens: 1024, includeThoughts: true }, temperature: 0.5 };
    const old = formatGeminiRequest(request, 'gemini-2.0-flash');
    expect(old.value.generationConfig).toEqual({ temperature: 0.5 });
    expect(old.warnings).toContain('thinkingConfig is not sent: gemini-2.0-flash takes no thinking settings (channel setting reasoning_effort)');
    expect(formatGeminiRequest({ ...base, reasoning: { effort: 'high' } }, 'gemini-1.5-pro').value).not.toHaveProperty('generationConfig');
    expect(formatGeminiRequest(request, 'gemini-2.5-flash').value.generationConfig).toEqual({ temperature: 0.5, thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } });
    expect(formatGeminiRequest(request, 'gemini-2.0-flash', { reasoningEffortSetting: true }).value.generationConfig).toEqual({ temperature: 0.5, thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } });
    expect(formatGeminiRequest(request, 'gemini-2.5-flash', { reasoningEffortSetting: false }).value.generationConfig).toEqual({ temperature: 0.5 });
  });

  it('reports arguments that are not a JSON object instead of sending them silently', () => {
    const request: CanonicalRequest = {
      ...base,
      messages: [...base.messages, { role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '[1,2]' }] }],
    };
    expect(formatGeminiRequest(request, 'gemini-2.5-flash').warnings).toEqual(['tool call c: arguments are not a JSON object and were sent as {} (was "[1,2]")']);
  });

  it('merges consecutive turns of one role, as Gemini expects them to alternate', () => {
    const request: CanonicalRequest = {
      ...base,
      messages: [
        ...base.messages,
        { role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '{}' }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', content: [{ type: 'text', text: 'r' }] }] },
        { role: 'user', content: [{ type: 'text', text: 'next' }] },
      ],
    };
    const contents = formatGeminiRequest(request, 'gemini-2.5-flash').value.contents as { role: string; parts: unknown[] }[];
    expect(contents.map((content) => [content.role, content.parts.length])).toEqual([
      ['user', 1],
      ['model', 1],
      ['user', 2],
    ]);
  });
});

describe('formatGeminiRequest stop sequences', () => {
  it('sends at most the 5 Gemini takes, and says so', () => {
    const { value, warnings } = formatGeminiRequest({ ...base, stopSequences: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] }, 'gemini-2.5-flash');
    expect((value.generationConfig as { stopSequences: string[] }).stopSequences).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(warnings).toContain('stop sequences: 7 given, Gemini takes 5; the rest not sent');
  });
});

describe('formatGeminiRequest empty text', () => {
  type Contents = { role: string; parts: Record<string, unknown>[] }[];

  it('leaves an empty text part out of a user turn: Gemini refuses it ("required oneof field \'data\' must have one initialized field")', () => {
    const request: CanonicalRequest = { ...base, messages: [{ role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: 'hello' }] }] };
    expect(formatGeminiRequest(request, 'gemini-2.5-flash').value.contents).toEqual([{ role: 'user', parts: [{ text: 'hello' }] }]);
  });

  it('sends no user turn whose only text is empty, and keeps the turns around it alternating', () => {
    const request: CanonicalRequest = {
      ...base,
      messages: [
        ...base.messages,
        { role: 'assistant', content: [{ type: 'text', text: 'a' }] },
        { role: 'user', content: [{ type: 'text', text: '' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
        { role: 'user', content: [{ type: 'text', text: 'next' }] },
      ],
    };
    expect(formatGeminiRequest(request, 'gemini-2.5-flash').value.contents as Contents).toEqual([
      { role: 'user', parts: [{ text: 'q' }] },
      { role: 'model', parts: [{ text: 'a' }, { text: 'b' }] },
      { role: 'user', parts: [{ text: 'next' }] },
    ]);
  });

  it('leaves empty system parts out, and systemInstruction out when nothing is left', () => {
    const some = formatGeminiRequest({ ...base, system: [{ type: 'text', text: '' }, { type: 'text', text: 'Be brief.' }] }, 'gemini-2.5-flash');
    expect(some.value.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    const none = formatGeminiRequest({ ...base, system: [{ type: 'text', text: '' }] }, 'gemini-2.5-flash');
    expect(none.value).not.toHaveProperty('systemInstruction');
  });
});

describe('formatGeminiRequest thinking budget', () => {
  const withBudget = (budgetTokens: number, model: string) => formatGeminiRequest({ ...base, reasoning: { budgetTokens, includeThoughts: true } }, model);
  const budgetOf = (result: ReturnType<typeof withBudget>) => (result.value.generationConfig as { thinkingConfig: { thinkingBudget?: number } }).thinkingConfig.thinkingBudget;

  it("fits Claude Code's 31999 into gemini-2.5-flash's 24576, with a warning (Gemini refuses a larger budget with a 400)", () => {
    const result = withBudget(31999, 'gemini-2.5-flash');
    expect(budgetOf(result)).toBe(24576);
    expect(result.warnings).toEqual(['reasoning: thinking budget 31999 sent as 24576 (Gemini 2.5 Flash takes 1–24576)']);
  });

  it('fits a budget into the range of each 2.5 family by upstream model name', () => {
    expect(budgetOf(withBudget(31999, 'gemini-2.5-flash-lite'))).toBe(24576);
    expect(budgetOf(withBudget(100, 'gemini-2.5-flash-lite-preview-06-17'))).toBe(512);
    expect(budgetOf(withBudget(31999, 'gemini-2.5-pro'))).toBe(31999);
    expect(budgetOf(withBudget(40000, 'gemini-2.5-pro'))).toBe(32768);
    expect(budgetOf(withBudget(64, 'gemini-2.5-pro-preview-06-05'))).toBe(128);
    expect(budgetOf(withBudget(31999, 'gemini-2.5-flash-preview-09-2025'))).toBe(24576);
    expect(withBudget(1024, 'gemini-2.5-flash').warnings).toEqual([]);
  });

  it('leaves 0 (off) and -1 (dynamic) alone, and a model whose range is not known', () => {
    expect(budgetOf(withBudget(0, 'gemini-2.5-flash'))).toBe(0);
    expect(budgetOf(withBudget(-1, 'gemini-2.5-pro'))).toBe(-1);
    expect(budgetOf(withBudget(31999, 'gemini-3-pro-preview'))).toBe(31999);
  });

  it('fits a budget made from an effort too, naming the budget sent', () => {
    const result = formatGeminiRequest({ ...base, reasoning: { effort: 'minimal' } }, 'gemini-2.5-flash-lite');
    expect(result.value.generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 512 } });
    expect(result.warnings).toEqual(['reasoning: effort "minimal" sent as thinkingBudget 512 (gemini-2.5-flash-lite takes no thinkingLevel)']);
  });
});
