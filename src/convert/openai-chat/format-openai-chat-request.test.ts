import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import { expectGolden, toPrettyJson } from '../test-support/expect-golden.js';
import { formatOpenaiChatRequest } from './format-openai-chat-request.js';
import { readFixture } from './test-support/read-fixture.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

const cases: [name: string, upstreamModel: string][] = [
  ['text', 'gpt-4.1-nano'],
  ['system-prompt', 'gpt-4.1-nano'],
  ['image-input', 'gpt-4.1-mini'],
  ['tool-round-trip', 'gpt-4.1-mini'],
  ['parallel-tool-calls', 'gpt-4.1-mini'],
  ['thinking-signature', 'o3-mini'],
];

const canonical = (name: string) => readFixture(`canonical-request-${name}.json`) as CanonicalRequest;

describe('formatOpenaiChatRequest', () => {
  it.each(cases)('formats the %s request for %s as its golden file says', (name, upstreamModel) => {
    expectGolden(goldenFolder, `format-request-${name}.json`, toPrettyJson(formatOpenaiChatRequest(canonical(name), upstreamModel)));
  });

  it('sends earlier reasoning back as reasoning_content when the upstream wants it (DeepSeek thinking with tools)', () => {
    const { value, warnings } = formatOpenaiChatRequest(canonical('thinking-signature'), 'deepseek-reasoner', { assistantReasoning: 'reasoning_content' });
    expect((value.messages as Record<string, unknown>[])[1]).toEqual({ role: 'assistant', content: '2 + 2 = 4.', reasoning_content: 'The user asks for 2+2. That is 4.' });
    expect(warnings).toContain('messages[1]: a reasoning signature cannot be expressed in Chat Completions; dropped');
    expect(value.max_tokens).toBe(4096);
  });

  it('uses max_completion_tokens for OpenAI reasoning models and max_tokens elsewhere', () => {
    const request = { ...canonical('text'), maxOutputTokens: 99 };
    expect(formatOpenaiChatRequest(request, 'gpt-5-mini').value).toMatchObject({ max_completion_tokens: 99 });
    expect(formatOpenaiChatRequest(request, 'o4-mini').value).toMatchObject({ max_completion_tokens: 99 });
    expect(formatOpenaiChatRequest(request, 'deepseek-chat').value).toMatchObject({ max_tokens: 99 });
  });

  it('sends reasoning_effort only to a model that takes it, else drops it with a warning (OpenAI refuses it for gpt-4o)', () => {
    const request: CanonicalRequest = { ...canonical('text'), reasoning: { effort: 'high' } };
    expect(formatOpenaiChatRequest(request, 'o4-mini').value.reasoning_effort).toBe('high');
    const dropped = formatOpenaiChatRequest(request, 'gpt-4o');
    expect(dropped.value).not.toHaveProperty('reasoning_effort');
    expect(dropped.warnings).toContain("reasoning effort 'high' is not sent: gpt-4o takes no reasoning_effort (channel setting reasoning_effort)");
    // The channel's setting wins over the name, either way.
    expect(formatOpenaiChatRequest(request, 'gemini-2.5-flash', { assistantReasoning: 'omit', reasoningEffortSetting: true }).value.reasoning_effort).toBe('high');
    expect(formatOpenaiChatRequest(request, 'o3', { assistantReasoning: 'omit', reasoningEffortSetting: false }).value).not.toHaveProperty('reasoning_effort');
  });

  it("sends a reasoning model the nearest effort it takes: o3 refuses 'minimal'", () => {
    const request: CanonicalRequest = { ...canonical('text'), reasoning: { effort: 'minimal' } };
    const o3 = formatOpenaiChatRequest(request, 'o3');
    expect(o3.value.reasoning_effort).toBe('low');
    expect(o3.warnings).toContain("reasoning effort 'minimal' sent as 'low': o3 takes 'low', 'medium', 'high'");
    expect(formatOpenaiChatRequest(request, 'gpt-5.1').value.reasoning_effort).toBe('none');
    expect(formatOpenaiChatRequest(request, 'gpt-5-mini').value.reasoning_effort).toBe('minimal');
  });

  it("sends a thinking budget as the nearest effort (Chat has no budget field): Claude Code's 31999 as 'high', thinking off as the least the model takes", () => {
    const budget = (budgetTokens: number): CanonicalRequest => ({ ...canonical('text'), reasoning: { budgetTokens, includeThoughts: true } });
    const claudeCode = formatOpenaiChatRequest(budget(31999), 'o4-mini');
    expect(claudeCode.value.reasoning_effort).toBe('high');
    expect(claudeCode.warnings).toContain('reasoning budget of 31999 tokens is approximated as effort "high"');
    expect(formatOpenaiChatRequest(budget(2048), 'gpt-5-mini').value.reasoning_effort).toBe('low');
    expect(formatOpenaiChatRequest(budget(0), 'gpt-5-mini').value.reasoning_effort).toBe('minimal');
    expect(formatOpenaiChatRequest(budget(0), 'gpt-5.1').value.reasoning_effort).toBe('none');
    expect(formatOpenaiChatRequest(budget(0), 'o3').value.reasoning_effort).toBe('low');
    const dynamic = formatOpenaiChatRequest(budget(-1), 'o4-mini');
    expect(dynamic.value).not.toHaveProperty('reasoning_effort');
    expect(dynamic.warnings).toContain('a dynamic reasoning budget is sent as no effort: the upstream model decides');
    const plain = formatOpenaiChatRequest(budget(31999), 'gpt-4o');
    expect(plain.value).not.toHaveProperty('reasoning_effort');
    expect(plain.warnings).toContain("reasoning effort 'high' is not sent: gpt-4o takes no reasoning_effort (channel setting reasoning_effort)");
  });

  it('asks a stream for usage, which billing needs', () => {
    expect(formatOpenaiChatRequest({ ...canonical('text'), stream: true }, 'gpt-4o').value).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(formatOpenaiChatRequest({ ...canonical('text'), stream: false }, 'gpt-4o').value).not.toHaveProperty('stream_options');
  });

  it('leaves tool_choice and parallel_tool_calls out when there are no tools, as OpenAI refuses them alone', () => {
    const { value } = formatOpenaiChatRequest({ ...canonical('text'), toolChoice: { type: 'none' }, parallelToolCalls: false }, 'gpt-4o');
    expect(value).not.toHaveProperty('tool_choice');
    expect(value).not.toHaveProperty('parallel_tool_calls');
  });

  it('formats response formats, naming an unnamed JSON schema "response"', () => {
    const format = (responseFormat: CanonicalRequest['responseFormat']) => formatOpenaiChatRequest({ ...canonical('text'), responseFormat }, 'gpt-4o').value.response_format;
    expect(format({ type: 'json_object' })).toEqual({ type: 'json_object' });
    expect(format({ type: 'json_schema', schema: { type: 'object' }, strict: true })).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema: { type: 'object' }, strict: true },
    });
  });

  it('sends an image given as a file part (Gemini inlineData) as image_url', () => {
    const request: CanonicalRequest = {
      ...canonical('text'),
      messages: [{ role: 'user', content: [{ type: 'file', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/' } }] }],
    };
    expect(formatOpenaiChatRequest(request, 'gpt-4o').value.messages).toEqual([
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/' } }] },
    ]);
  });
});

describe('formatOpenaiChatRequest images in tool results', () => {
  const png = { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } as const;
  const pngUrl = 'data:image/png;base64,iVBOR';
  const calls: CanonicalRequest['messages'][number] = {
    role: 'assistant',
    content: [{ type: 'tool-call', id: 'call_1', name: 'screenshot', arguments: '{}' }, { type: 'tool-call', id: 'call_2', name: 'radar', arguments: '{}' }],
  };
  const results: CanonicalRequest['messages'] = [
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', name: 'screenshot', content: [{ type: 'text', text: 'shot:' }, { type: 'image', source: png }] }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_2', content: [{ type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' }, detail: 'low' }, { type: 'file', source: png, mediaType: 'image/png' }] }] },
  ];
  const request = (after: CanonicalRequest['messages']): CanonicalRequest => ({ model: 'm', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }, calls, ...results, ...after], tools: [], stream: false });

  it('sends them in one user message after all the turn\'s tool messages, each result\'s images behind a label naming its call', () => {
    const { value, warnings } = formatOpenaiChatRequest(request([{ role: 'assistant', content: [{ type: 'text', text: 'Seen.' }] }]), 'gpt-4o');
    expect((value.messages as Record<string, unknown>[]).slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'shot:' },
      { role: 'tool', tool_call_id: 'call_2', content: '' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Image from the result of tool call call_1 (screenshot):' },
          { type: 'image_url', image_url: { url: pngUrl } },
          { type: 'text', text: 'Images from the result of tool call call_2:' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
          { type: 'image_url', image_url: { url: pngUrl } },
        ],
      },
      { role: 'assistant', content: 'Seen.' },
    ]);
    expect(warnings).toContain('messages[2]: Chat Completions tool messages cannot hold images; the result of call_1 has its images sent in a user message after the tool messages');
  });

  it('puts them before the content of the user message that follows the results, and after results that end the conversation', () => {
    const merged = formatOpenaiChatRequest(request([{ role: 'user', content: [{ type: 'text', text: 'Compare them.' }] }]), 'gpt-4o').value.messages as Record<string, unknown>[];
    expect(merged.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect((merged[4]?.content as Record<string, unknown>[]).at(-1)).toEqual({ type: 'text', text: 'Compare them.' });
    expect(merged[4]?.content).toHaveLength(6);
    const last = formatOpenaiChatRequest(request([]), 'gpt-4o').value.messages as Record<string, unknown>[];
    expect(last.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(last[4]?.content).toHaveLength(5);
  });
});

describe('formatOpenaiChatRequest stop sequences', () => {
  it('sends at most the 4 Chat Completions takes, and says so', () => {
    const request: CanonicalRequest = { model: 'm', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }], tools: [], stream: false, stopSequences: ['a', 'b', 'c', 'd', 'e'] };
    const { value, warnings } = formatOpenaiChatRequest(request, 'gpt-4o');
    expect(value.stop).toEqual(['a', 'b', 'c', 'd']);
    expect(warnings).toContain('stop sequences: 5 given, Chat Completions takes 4; the rest not sent');
  });
});

describe('formatOpenaiChatRequest empty text', () => {
  const withMessages = (messages: CanonicalRequest['messages']): CanonicalRequest => ({ model: 'm', system: [], messages, tools: [], stream: false });
  const messagesOf = (request: CanonicalRequest) => formatOpenaiChatRequest(request, 'gpt-4o').value.messages as Record<string, unknown>[];

  it('leaves an empty text part (a Claude Code empty block) out of a user message that has other content: strict servers refuse it', () => {
    const image = { type: 'image' as const, source: { kind: 'url' as const, url: 'https://example.com/a.png' } };
    expect(messagesOf(withMessages([{ role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: 'hello' }, image] }]))).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hello' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
    ]);
  });

  it('sends a user message of empty text only as an empty string, as a lone empty block is sent', () => {
    const empty = { type: 'text' as const, text: '' };
    expect(messagesOf(withMessages([{ role: 'user', content: [empty, empty] }]))).toEqual([{ role: 'user', content: '' }]);
    expect(messagesOf(withMessages([{ role: 'user', content: [empty] }]))).toEqual([{ role: 'user', content: '' }]);
  });

  it('leaves empty text out of a tool result', () => {
    const messages = messagesOf(
      withMessages([
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '{}' }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', content: [{ type: 'text', text: '' }, { type: 'text', text: 'r' }] }] },
      ]),
    );
    expect(messages[2]).toEqual({ role: 'tool', tool_call_id: 'c', content: 'r' });
  });
});

describe('formatOpenaiChatRequest reasoning left out', () => {
  it('reports the reasoning texts of earlier turns it does not send back, and none when it sends them', () => {
    const request: CanonicalRequest = {
      model: 'm', system: [], tools: [], stream: false,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'First.' }, { type: 'reasoning', text: 'Second.', signature: 'EqQB' }, { type: 'text', text: 'a' }] },
      ],
    };
    expect(formatOpenaiChatRequest(request, 'gpt-4.1').unsentReasoningTexts).toEqual(['First.', 'Second.']);
    const replayed = formatOpenaiChatRequest(request, 'deepseek-reasoner', { assistantReasoning: 'reasoning_content' });
    expect(replayed.unsentReasoningTexts).toEqual([]);
    expect((replayed.value.messages as Record<string, unknown>[])[1]?.reasoning_content).toBe('First.Second.');
  });
});
