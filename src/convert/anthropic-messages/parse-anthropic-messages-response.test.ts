import { describe, expect, it } from 'vitest';
import { parseAnthropicMessagesResponse } from './parse-anthropic-messages-response.js';

const message = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } };

describe('parseAnthropicMessagesResponse', () => {
  it('throws on a body that is not a Message', () => {
    expect(() => parseAnthropicMessagesResponse({ type: 'error', error: { type: 'api_error', message: 'x' } })).toThrow(/not a Message/);
  });

  it('drops server tool blocks with a warning and keeps the rest', () => {
    const result = parseAnthropicMessagesResponse({
      ...message,
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
        { type: 'text', text: 'Found.' },
      ],
    });
    expect(result.value.content).toEqual([{ type: 'text', text: 'Found.' }]);
    expect(result.warnings).toEqual(["content.0: a 'server_tool_use' block is not carried: dropped", "content.1: a 'web_search_tool_result' block is not carried: dropped"]);
  });

  it('reads redacted thinking as reasoning with opaque data', () => {
    const result = parseAnthropicMessagesResponse({ ...message, content: [{ type: 'redacted_thinking', data: 'opaque' }] });
    expect(result.value.content).toEqual([{ type: 'reasoning', text: '', redactedData: 'opaque', issuer: 'anthropic' }]);
  });

  it('reports a refusal with its stop details as a warning', () => {
    const result = parseAnthropicMessagesResponse({ ...message, content: [], stop_reason: 'refusal', stop_details: { type: 'refusal', category: 'cyber' } });
    expect(result.value.finishReason).toEqual({ unified: 'content_filter', raw: 'refusal' });
    expect(result.warnings).toEqual(['stop_details are not carried: {"type":"refusal","category":"cyber"}']);
  });

  it('reports a missing usage as none, not as zero (billing then counts the answer locally)', () => {
    const { usage: _, ...withoutUsage } = message;
    const result = parseAnthropicMessagesResponse({ ...withoutUsage, content: [] });
    expect(result.value.usage).toBeUndefined();
    expect(result.warnings).toEqual(['the response has no usage']);
  });
});
