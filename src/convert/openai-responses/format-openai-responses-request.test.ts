import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import { expectGolden, toPrettyJson } from '../test-support/expect-golden.js';
import { formatOpenaiResponsesRequest } from './format-openai-responses-request.js';
import { canonicalRequests } from './test-support/canonical-requests.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

describe('formatOpenaiResponsesRequest', () => {
  it.each(Object.keys(canonicalRequests))('matches the golden upstream body for %s', (name) => {
    const request = canonicalRequests[name];
    if (request === undefined) throw new Error(name);
    expectGolden(goldenFolder, `format-request-${name}.json`, toPrettyJson(formatOpenaiResponsesRequest(request, 'gpt-5-2025-08-07')));
  });

  it('sends function tools flat and non-strict, and never asks OpenAI to store the conversation', () => {
    const { value } = formatOpenaiResponsesRequest(canonicalRequests['tool-call-round-trip']!, 'gpt-4.1');
    expect(value.tools).toEqual([
      {
        type: 'function',
        name: 'get_weather',
        description: 'Get the current weather in a location.',
        parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
        strict: false,
      },
    ]);
    expect(value.store).toBe(false);
    expect(value.include).toBeUndefined();
  });

  it('replays only OpenAI encrypted reasoning, warning about a signature it cannot send', () => {
    const { value, warnings } = formatOpenaiResponsesRequest(canonicalRequests['thinking-with-signature']!, 'gpt-5');
    const reasoningItems = (value.input as { type?: string }[]).filter((item) => item.type === 'reasoning');
    expect(reasoningItems).toEqual([
      { type: 'reasoning', summary: [{ type: 'summary_text', text: '**Adding two numbers**\n\nThe user asks for 3+3.' }], encrypted_content: 'gAAAAABo5LKjDoneTokenMn8b3Vc5Xz7Lk9Jh1Gf3Ds5Aq7Wp9Eo2Ri4' },
    ]);
    expect(warnings).toEqual(['messages[1].content[0]: reasoning without OpenAI encrypted_content cannot be replayed to a Responses upstream; dropped']);
    expect(value.include).toEqual(['reasoning.encrypted_content']);
  });

  it('warns about every setting Responses has no field for, and raises a too-small output limit', () => {
    const { value, warnings } = formatOpenaiResponsesRequest(canonicalRequests['unsupported-settings']!, 'gpt-5');
    expect(value.max_output_tokens).toBe(16);
    expect(value.reasoning).toEqual({ effort: 'medium', summary: 'auto' });
    expect(warnings).toEqual([
      'max output tokens 8 raised to 16, the Responses minimum',
      'reasoning budget of 10000 tokens is approximated as effort "medium"',
      'top_k has no Responses equivalent; not sent',
      'stop sequences has no Responses equivalent; not sent',
      'seed has no Responses equivalent; not sent',
      'presence_penalty has no Responses equivalent; not sent',
      'frequency_penalty has no Responses equivalent; not sent',
    ]);
  });

  it('sends reasoning (and asks for its encryption) only to a model that takes it: OpenAI refuses reasoning.effort for gpt-4.1', () => {
    const request = canonicalRequests['unsupported-settings']!;
    const dropped = formatOpenaiResponsesRequest(request, 'gpt-4.1');
    expect(dropped.value.reasoning).toBeUndefined();
    expect(dropped.value.include).toBeUndefined();
    expect(dropped.warnings).toContain('reasoning {"effort":"medium","summary":"auto"} is not sent: gpt-4.1 takes no reasoning settings (channel setting reasoning_effort)');
    expect(formatOpenaiResponsesRequest(request, 'my-deployment', { reasoningEffortSetting: true }).value.reasoning).toEqual({ effort: 'medium', summary: 'auto' });
    expect(formatOpenaiResponsesRequest(request, 'o3', { reasoningEffortSetting: false }).value.reasoning).toBeUndefined();
  });

  it("sends a reasoning model the nearest effort it takes: thinking off ('minimal') goes to o3 as 'low', to gpt-5.1 as 'none'", () => {
    const off = { ...canonicalRequests.text!, reasoning: { budgetTokens: 0 } };
    const o3 = formatOpenaiResponsesRequest(off, 'o3');
    expect(o3.value.reasoning).toEqual({ effort: 'low' });
    expect(o3.warnings).toContain("reasoning effort 'minimal' sent as 'low': o3 takes 'low', 'medium', 'high'");
    expect(formatOpenaiResponsesRequest(off, 'gpt-5.1').value.reasoning).toEqual({ effort: 'none' });
    expect(formatOpenaiResponsesRequest(off, 'gpt-5').value.reasoning).toEqual({ effort: 'minimal' });
    expect(formatOpenaiResponsesRequest(off, 'my-deployment', { reasoningEffortSetting: true }).value.reasoning).toEqual({ effort: 'minimal' });
  });

  it('does not send an end-user id longer than safety_identifier takes', () => {
    const { value, warnings } = formatOpenaiResponsesRequest({ ...canonicalRequests.text!, user: 'u'.repeat(65) }, 'gpt-5');
    expect(value.safety_identifier).toBeUndefined();
    expect(warnings).toEqual(['the end-user id is longer than the 64 characters safety_identifier takes; not sent']);
  });
});

describe('formatOpenaiResponsesRequest reasoning budgets', () => {
  it('sends a dynamic budget (-1) as no effort, so the model decides, with a warning', () => {
    const request = { ...canonicalRequests['unsupported-settings']!, reasoning: { budgetTokens: -1, includeThoughts: true } };
    const { value, warnings } = formatOpenaiResponsesRequest(request, 'gpt-5');
    expect(value.reasoning).toEqual({ summary: 'auto' });
    expect(warnings).toContain('a dynamic reasoning budget is sent as no effort: the upstream model decides');
  });
});

describe('formatOpenaiResponsesRequest empty text', () => {
  const inputOf = (messages: CanonicalRequest['messages']) =>
    formatOpenaiResponsesRequest({ model: 'm', system: [], messages, tools: [], stream: false }, 'gpt-5').value.input as Record<string, unknown>[];

  it('leaves an empty input_text (a Claude Code empty block) out of a user message that has other content: strict servers refuse it', () => {
    expect(inputOf([{ role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: 'hello' }] }])).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] },
    ]);
  });

  it('keeps one empty input_text for a user message of empty text only, as a lone empty block is sent', () => {
    const empty = { type: 'text' as const, text: '' };
    expect(inputOf([{ role: 'user', content: [empty, empty] }])).toEqual([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: '' }] }]);
  });

  it('leaves empty text out of a tool result', () => {
    const input = inputOf([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      { role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '{}' }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', content: [{ type: 'text', text: '' }, { type: 'text', text: 'r' }] }] },
    ]);
    expect(input.at(-1)).toEqual({ type: 'function_call_output', call_id: 'c', output: 'r' });
  });
});

describe('formatOpenaiResponsesRequest reasoning left out', () => {
  it('reports the text of each reasoning item it cannot replay, and not that of OpenAI encrypted reasoning', () => {
    const request: CanonicalRequest = {
      model: 'm', system: [], tools: [], stream: false,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Summary only.' },
            { type: 'reasoning', text: 'Claude redacted.', redactedData: 'EmwK', issuer: 'anthropic' },
            { type: 'reasoning', text: 'OpenAI summary.', redactedData: 'gAAAAABo', issuer: 'openai' },
            { type: 'text', text: 'a' },
          ],
        },
      ],
    };
    const { value, unsentReasoningTexts } = formatOpenaiResponsesRequest(request, 'gpt-5');
    expect(unsentReasoningTexts).toEqual(['Summary only.', 'Claude redacted.']);
    expect((value.input as { type?: string }[]).filter((item) => item.type === 'reasoning')).toEqual([
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'OpenAI summary.' }], encrypted_content: 'gAAAAABo' },
    ]);
  });
});
