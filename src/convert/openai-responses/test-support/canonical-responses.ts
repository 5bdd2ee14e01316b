import type { CanonicalResponse } from '../../../canonical/canonical-response.js';

const usage = { input: { total: 25, cacheRead: 0, cacheWrite: 0 }, output: { total: 12, reasoning: 0 } };

/** Representative canonical responses, as another style's parser (or a collected stream) would produce them. */
export const canonicalResponses: Record<string, CanonicalResponse> = {
  text: {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    model: 'claude-sonnet-4-5-20250929',
    created: 1760000000,
    content: [{ type: 'text', text: 'Hello, world!' }],
    finishReason: { unified: 'stop', raw: 'end_turn' },
    usage,
  },
  'tool-call': {
    id: 'chatcmpl-CBHbxJ0BwvFs',
    model: 'gpt-4.1',
    created: 1760000000,
    content: [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool-call', id: 'call_weather_1', name: 'get_weather', arguments: '{"location":"Paris"}' },
    ],
    finishReason: { unified: 'tool_calls', raw: 'tool_calls' },
    usage,
  },
  'parallel-tool-calls': {
    id: 'gen_parallel_1',
    model: 'gemini-2.5-flash',
    created: 1760000000,
    content: [
      { type: 'tool-call', id: 'call_a', name: 'get_weather', arguments: '{"location":"Paris"}' },
      { type: 'tool-call', id: 'call_b', name: 'get_time', arguments: '{"zone":"CET"}' },
    ],
    finishReason: { unified: 'tool_calls', raw: 'STOP' },
    usage,
  },
  'thinking-with-signature': {
    id: 'msg_01ThinkingExample',
    model: 'claude-sonnet-4-5-20250929',
    created: 1760000000,
    content: [
      { type: 'reasoning', text: 'The user asks for 2+2. That is 4.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds', issuer: 'anthropic' },
      { type: 'reasoning', text: '', redactedData: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP', issuer: 'anthropic' },
      { type: 'text', text: '2 + 2 = 4.' },
    ],
    finishReason: { unified: 'stop', raw: 'end_turn' },
    usage: { input: { total: 30, cacheRead: 0, cacheWrite: 0 }, output: { total: 50, reasoning: 38 } },
  },
  'collected-openai-reasoning': {
    // A streamed OpenAI answer collected part by part: the summary and its encrypted content arrive as two parts.
    id: 'resp_0c5f3e8a1b2d4c6e0068e4b2a1d3c58190a4b7c9d2e1f3a5b6',
    model: 'gpt-5-2025-08-07',
    created: 1759830817,
    content: [
      { type: 'reasoning', text: '**Adding two numbers**\n\nThe user asks for 2+2.' },
      { type: 'reasoning', text: '', redactedData: 'gAAAAABo5LKjDoneTokenMn8b3Vc5Xz7Lk9Jh1Gf3Ds5Aq7Wp9Eo2Ri4', issuer: 'openai' },
      { type: 'text', text: '2 + 2 = 4.' },
    ],
    finishReason: { unified: 'stop', raw: 'completed' },
    usage: { input: { total: 30, cacheRead: 0, cacheWrite: 0 }, output: { total: 50, reasoning: 38 } },
  },
  'max-tokens': {
    id: 'msg_01LengthExample',
    model: 'claude-sonnet-4-5-20250929',
    created: 1760000000,
    content: [{ type: 'text', text: 'Once upon a time there' }],
    finishReason: { unified: 'length', raw: 'max_tokens' },
    usage: { input: { total: 10, cacheRead: 0, cacheWrite: 0 }, output: { total: 5, reasoning: 0 } },
  },
  'cache-usage': {
    id: 'msg_01CacheExample',
    model: 'claude-sonnet-4-5-20250929',
    created: 1760000000,
    content: [{ type: 'text', text: 'Cached answer.' }],
    finishReason: { unified: 'stop', raw: 'end_turn' },
    usage: { input: { total: 2100, cacheRead: 1800, cacheWrite: 200 }, output: { total: 7, reasoning: 0 } },
  },
};
