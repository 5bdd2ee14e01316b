import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import { formatGeminiRequest } from './format-gemini-request.js';
import { formatGeminiResponse } from './format-gemini-response.js';
import { parseGeminiRequest } from './parse-gemini-request.js';
import { parseGeminiResponse } from './parse-gemini-response.js';
import { fixedContext } from './test-support/fixed-context.js';

/** What the Gemini wire cannot hold by design: the model and streaming live in the URL. */
function urlFields(request: CanonicalRequest): CanonicalRequest {
  return { ...request, model: '', stream: false };
}

function roundTripRequest(request: CanonicalRequest, upstreamModel = 'gemini-3-pro-preview') {
  const formatted = formatGeminiRequest(request, upstreamModel);
  const parsed = parseGeminiRequest(JSON.parse(JSON.stringify(formatted.value)));
  if ('invalid' in parsed) throw new Error(parsed.message);
  return parsed;
}

const representative: CanonicalRequest = {
  model: 'gemini-3-pro-preview',
  system: [{ type: 'text', text: 'Be brief.' }],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this image, and the weather in Paris and Rome?' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Two cities: call the tool twice.', signature: 'sig-1', issuer: 'google' },
        { type: 'tool-call', id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'call_rome', name: 'get_weather', arguments: '{"city":"Rome"}' },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'call_paris', name: 'get_weather', content: [{ type: 'text', text: '{"temperature":15}' }] },
        {
          type: 'tool-result',
          toolCallId: 'call_rome',
          name: 'get_weather',
          content: [
            { type: 'text', text: 'station offline' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
          ],
          isError: true,
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'A cat. Paris is 15°C; Rome is unknown.' }, { type: 'reasoning', text: '', signature: 'sig-end', issuer: 'google' }] },
    { role: 'user', content: [{ type: 'text', text: 'Thanks!' }] },
  ],
  tools: [{ name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
  toolChoice: { type: 'tool', name: 'get_weather' },
  maxOutputTokens: 1024,
  temperature: 0.5,
  topP: 0.9,
  topK: 40,
  stopSequences: ['STOP'],
  seed: 3,
  presencePenalty: 0.1,
  frequencyPenalty: 0.2,
  responseFormat: { type: 'json_schema', schema: { type: 'object' } },
  reasoning: { budgetTokens: 512, includeThoughts: true },
  stream: true,
};

describe('Gemini request round trip', () => {
  it('parses back what it formats, with nothing lost and no warnings', () => {
    const { value, warnings } = roundTripRequest(representative);
    expect(value).toEqual(urlFields(representative));
    expect(warnings).toEqual([]);
  });

  it('keeps a signature on the empty reasoning that precedes a call, and effort levels', () => {
    const request: CanonicalRequest = {
      ...urlFields(representative),
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: '', signature: 'sig-call', issuer: 'google' },
            { type: 'tool-call', id: 'c1', name: 'f', arguments: '{}' },
            { type: 'text', text: 'and' },
            { type: 'reasoning', text: 'more thought', signature: 'sig-thought', issuer: 'google' },
          ],
        },
      ],
      reasoning: { effort: 'high' },
    };
    expect(roundTripRequest(request).value).toEqual(request);
  });
});

describe('Gemini response round trip', () => {
  const response: CanonicalResponse = {
    id: 'resp-1',
    model: 'gemini-2.5-flash',
    created: 0,
    content: [
      { type: 'reasoning', text: 'Thinking it over.', signature: 'sig-a', issuer: 'google' },
      { type: 'text', text: 'Calling two tools.' },
      { type: 'tool-call', id: 'call_1', name: 'a', arguments: '{"x":1}' },
      { type: 'tool-call', id: 'call_2', name: 'b', arguments: '{}' },
    ],
    finishReason: { unified: 'tool_calls', raw: 'STOP' },
    usage: { input: { total: 120, cacheRead: 100, cacheWrite: 0 }, output: { total: 60, reasoning: 20 } },
  };

  it('parses back what it formats, raw usage aside', () => {
    const formatted = formatGeminiResponse(response, fixedContext('gemini-2.5-flash'));
    const { value, warnings } = parseGeminiResponse(JSON.parse(JSON.stringify(formatted.value)));
    expect({ ...value, usage: { ...value.usage, raw: undefined } }).toEqual({ ...response, usage: { ...response.usage, raw: undefined } });
    expect(warnings).toEqual([]);
  });

  it('keeps the raw finish reason of every Gemini value', () => {
    for (const raw of ['MAX_TOKENS', 'SAFETY', 'RECITATION', 'MALFORMED_FUNCTION_CALL', 'OTHER']) {
      const formatted = formatGeminiResponse({ ...response, content: [{ type: 'text', text: 'x' }], finishReason: { unified: 'other', raw } }, fixedContext());
      expect(parseGeminiResponse(formatted.value).value.finishReason.raw).toBe(raw);
    }
  });
});

describe('redacted reasoning through a Gemini client', () => {
  // Anthropic `redacted_thinking` (no text) and a Responses reasoning item (summary text + encrypted content).
  const call = { type: 'tool-call' as const, id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' };
  const answers: CanonicalResponse['content'][] = [
    [{ type: 'reasoning', text: '', redactedData: 'EmwKAhgBEgy3va3p', issuer: 'anthropic' }, call],
    [{ type: 'reasoning', text: 'Let me think.', redactedData: 'gAAAAABenc1', issuer: 'openai' }, call],
  ];

  it('reaches the client as the signature of the call that follows, and comes back as redacted reasoning on its next turn', () => {
    for (const content of answers) {
      const response: CanonicalResponse = { id: 'r', model: 'm', created: 0, content, finishReason: { unified: 'tool_calls', raw: 'STOP' }, usage: undefined };
      const formatted = formatGeminiResponse(response, fixedContext('gemini-2.5-flash'));
      expect(formatted.warnings).toEqual([]);
      const parts = (formatted.value as { candidates: { content: { parts: Record<string, unknown>[] } }[] }).candidates[0]!.content.parts;
      expect(parts.at(-1)).toMatchObject({ functionCall: { id: 'toolu_1' }, thoughtSignature: content[0]!.type === 'reasoning' ? `redacted:${content[0]!.issuer}:${content[0]!.redactedData}` : '' });
      const next = parseGeminiRequest({ contents: [{ role: 'user', parts: [{ text: 'Weather?' }] }, { role: 'model', parts }, { role: 'user', parts: [{ functionResponse: { id: 'toolu_1', name: 'get_weather', response: { output: 'sunny' } } }] }] });
      if ('invalid' in next) throw new Error(next.message);
      expect(next.value.messages[1]).toEqual({ role: 'assistant', content });
    }
  });

  it('is still dropped, with a warning, toward a Gemini upstream, which could not read it', () => {
    const request: CanonicalRequest = { ...urlFields(representative), messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }, { role: 'assistant', content: answers[0]! }], toolChoice: undefined };
    const formatted = formatGeminiRequest(request, 'gemini-2.5-flash');
    expect(JSON.stringify(formatted.value)).not.toContain('EmwKAhgBEgy3va3p');
    expect(formatted.warnings).toContain('reasoning: redacted/encrypted reasoning has no Gemini form and was dropped');
  });
});
