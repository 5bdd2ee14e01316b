import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import type { Converted } from '../../canonical/conversion.js';
import { expectGolden } from '../test-support/expect-golden.js';
import { parseGeminiRequest } from './parse-gemini-request.js';
import { readFixtureJson } from './test-support/read-recorded-chunks.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);
const cases = ['text', 'system-prompt', 'image-input', 'tool-round-trip', 'parallel-tool-calls', 'thinking-signature'];

function parse(body: unknown): Converted<CanonicalRequest> {
  const result = parseGeminiRequest(body);
  if ('invalid' in result) throw new Error(`refused: ${result.param}: ${result.message}`);
  return result;
}

const userText = (text: string) => ({ role: 'user', parts: [{ text }] });

describe('parseGeminiRequest', () => {
  for (const name of cases) {
    it(`parses the ${name} request into the golden canonical request`, () => {
      const actual = `${JSON.stringify(parse(readFixtureJson(`request-${name}.json`)), null, 2)}\n`;
      expectGolden(goldenFolder, `parse-request-${name}.json`, actual);
    });
  }

  it('refuses a body without contents', () => {
    expect(parseGeminiRequest({ generationConfig: {} })).toMatchObject({ invalid: true, param: 'contents' });
  });

  it('refuses empty contents', () => {
    expect(parseGeminiRequest({ contents: [] })).toEqual({ invalid: true, param: 'contents', message: 'contents must not be empty' });
  });

  it('refuses a body that is not an object', () => {
    expect(parseGeminiRequest('hello')).toMatchObject({ invalid: true, param: 'body' });
  });

  it('refuses a part whose text is not a string, naming the field', () => {
    expect(parseGeminiRequest({ contents: [{ role: 'user', parts: [{ text: 42 }] }] })).toMatchObject({ invalid: true, param: 'contents.0.parts.0.text' });
  });

  it('refuses an unknown role', () => {
    expect(parseGeminiRequest({ contents: [{ role: 'system', parts: [{ text: 'x' }] }] })).toMatchObject({ invalid: true, param: 'contents.0.role' });
  });

  it('refuses a field written under both spellings in one object, naming both (the upstream may read either)', () => {
    const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
    const both = parseGeminiRequest({ contents, generationConfig: { maxOutputTokens: 5 }, generation_config: { max_output_tokens: 100_000 } });
    expect(both).toMatchObject({ invalid: true, param: 'generationConfig' });
    expect((both as { message: string }).message).toContain('"generationConfig" and "generation_config"');
    expect(parseGeminiRequest({ contents, generationConfig: { max_output_tokens: 100_000, maxOutputTokens: 5 } })).toMatchObject({ invalid: true, param: 'maxOutputTokens' });
    // Two snake-ish spellings that camelize alike are one field too.
    expect(parseGeminiRequest({ contents, generationConfig: { max_output_tokens: 1, maxOutput_tokens: 2 } })).toMatchObject({ invalid: true, param: 'maxOutputTokens' });
    // In the caller's own data (function arguments) both are two names, kept as sent.
    expect(parseGeminiRequest({ contents: [{ role: 'model', parts: [{ functionCall: { name: 'f', args: { max_tokens: 1, maxTokens: 2 } } }] }, ...contents] })).not.toHaveProperty('invalid');
  });

  it('reads snake_case field names as the REST API does, but never renames function arguments', () => {
    const { value } = parse({
      contents: [
        userText('hi'),
        { role: 'model', parts: [{ function_call: { name: 'f', args: { user_id: 1 } }, thought_signature: 'sig' }] },
        { role: 'user', parts: [{ function_response: { name: 'f', response: { first_name: 'Ada' } } }] },
      ],
      generation_config: { max_output_tokens: 9, thinking_config: { thinking_budget: 0 } },
    });
    expect(value.maxOutputTokens).toBe(9);
    expect(value.reasoning).toEqual({ budgetTokens: 0 });
    expect(value.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: '', signature: 'sig', issuer: 'google' },
        { type: 'tool-call', id: 'call_0', name: 'f', arguments: '{"user_id":1}' },
      ],
    });
    expect(value.messages[2]).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call_0', name: 'f', content: [{ type: 'text', text: '{"first_name":"Ada"}' }] }],
    });
  });

  it('pairs responses without ids with calls of the same name in order, across turns', () => {
    const { value } = parse({
      contents: [
        userText('two lookups'),
        { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 1 } } }, { functionCall: { name: 'lookup', args: { q: 2 } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { output: 'one' } } }, { functionResponse: { name: 'lookup', response: { output: 'two' } } }] },
        { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 3 } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { output: 'three' } } }] },
      ],
    });
    const calls = value.messages.flatMap((message) => (message.role === 'assistant' ? message.content : [])).map((part) => part.type === 'tool-call' && part.id);
    const results = value.messages.flatMap((message) => (message.role === 'tool' ? message.content : [])).map((part) => part.toolCallId);
    expect(calls).toEqual(['call_0', 'call_1', 'call_2']);
    expect(results).toEqual(['call_0', 'call_1', 'call_2']);
  });

  it('splits a user turn into tool results and user text, in order', () => {
    const { value } = parse({
      contents: [
        userText('q'),
        { role: 'model', parts: [{ functionCall: { name: 'f', args: {}, id: 'c1' } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'f', response: { output: 'r' } } }, { text: 'and now?' }] },
      ],
    });
    expect(value.messages.slice(2).map((message) => message.role)).toEqual(['tool', 'user']);
  });

  it('drops Google signature placeholders, which sign nothing', () => {
    const { value } = parse({ contents: [userText('q'), { role: 'model', parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'skip_thought_signature_validator' }] }] });
    expect(value.messages[1]?.content).toEqual([{ type: 'tool-call', id: 'call_0', name: 'f', arguments: '{}' }]);
  });

  it('maps tool choice modes', () => {
    const choice = (mode: string, allowedFunctionNames?: string[]) =>
      parse({ contents: [userText('q')], toolConfig: { functionCallingConfig: { mode, allowedFunctionNames } } }).value.toolChoice;
    expect(choice('AUTO')).toEqual({ type: 'auto' });
    expect(choice('NONE')).toEqual({ type: 'none' });
    expect(choice('ANY')).toEqual({ type: 'required' });
    expect(choice('ANY', ['f'])).toEqual({ type: 'tool', name: 'f' });
  });

  it('reads a JSON response format with its schema', () => {
    const { value } = parse({
      contents: [userText('q')],
      generationConfig: { responseMimeType: 'application/json', responseSchema: { type: 'OBJECT', properties: { type: { type: 'STRING', enum: ['A'] } } } },
    });
    expect(value.responseFormat).toEqual({ type: 'json_schema', schema: { type: 'object', properties: { type: { type: 'string', enum: ['A'] } } } });
  });

  it('reads OpenAPI nullable as a "null" type, in tool parameters and the response schema, at any depth', () => {
    const schema = {
      type: 'OBJECT',
      properties: {
        note: { type: 'STRING', nullable: true },
        kind: { type: 'STRING', enum: ['a', 'b'], nullable: true },
        list: { type: 'ARRAY', nullable: true, items: { type: 'INTEGER', nullable: false } },
        nullable: { anyOf: [{ type: 'STRING' }], nullable: true },
      },
    };
    const json = {
      type: 'object',
      properties: {
        note: { type: ['string', 'null'] },
        kind: { type: ['string', 'null'], enum: ['a', 'b', null] },
        list: { type: ['array', 'null'], items: { type: 'integer' } },
        nullable: { anyOf: [{ anyOf: [{ type: 'string' }] }, { type: 'null' }] },
      },
    };
    const { value } = parse({
      contents: [userText('q')],
      tools: [{ functionDeclarations: [{ name: 'f', parameters: schema }] }],
      generationConfig: { responseMimeType: 'application/json', responseSchema: schema },
    });
    expect(value.tools[0]?.parameters).toEqual(json);
    expect(value.responseFormat).toEqual({ type: 'json_schema', schema: json });
  });

  it('names every setting it cannot carry in a warning', () => {
    const { warnings } = parse({
      contents: [userText('q')],
      safetySettings: [],
      cachedContent: 'cachedContents/abc',
      tools: [{ codeExecution: {} }],
      generationConfig: { candidateCount: 2, responseModalities: ['TEXT', 'IMAGE'] },
    });
    expect(warnings).toEqual([
      'safetySettings has no canonical form and was not carried',
      'cachedContent has no canonical form and was not carried',
      'generationConfig.responseModalities has no canonical form and was not carried',
      'generationConfig.candidateCount > 1: only one candidate is generated',
      "tools: Gemini's built-in tool codeExecution has no canonical form and was dropped",
    ]);
  });
});

describe('parseGeminiRequest thinking budgets', () => {
  it('keeps -1 (dynamic thinking) as a budget, so thinking stays on, and ignores other negative budgets with a warning', () => {
    const dynamic = parse({ contents: [userText('hi')], generationConfig: { thinkingConfig: { thinkingBudget: -1, includeThoughts: true } } });
    expect(dynamic.value.reasoning).toEqual({ budgetTokens: -1, includeThoughts: true });
    const odd = parse({ contents: [userText('hi')], generationConfig: { thinkingConfig: { thinkingBudget: -5 } } });
    expect(odd.value.reasoning).toBeUndefined();
    expect(odd.warnings).toContain('generationConfig.thinkingConfig.thinkingBudget -5 is not a budget and was ignored');
  });
});
