import { describe, expect, it } from 'vitest';
import { estimateSentOpaqueTokens } from './estimate-sent-opaque-tokens.js';

const sig = (length: number) => 'E'.repeat(length);

describe('estimateSentOpaqueTokens', () => {
  it("reads Anthropic thinking signatures and redacted data, not the thinking's text", () => {
    const body = { messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: 'x'.repeat(400), signature: sig(400) }, { type: 'redacted_thinking', data: sig(41) }, { type: 'text', text: 'y'.repeat(80) }] }] };
    expect(estimateSentOpaqueTokens('anthropic-messages', body)).toBe(100 + 11);
  });

  it("reads every Responses input item's encrypted_content (a compaction item's too)", () => {
    const body = { input: [{ type: 'compaction', encrypted_content: sig(40) }, { type: 'reasoning', encrypted_content: sig(8) }, { role: 'user', content: 'hi' }] };
    expect(estimateSentOpaqueTokens('openai-responses', body)).toBe(12);
  });

  it("reads Gemini thought signatures, not Google's stand-ins", () => {
    const body = { contents: [{ role: 'model', parts: [{ text: 'a', thoughtSignature: sig(16) }, { functionCall: { name: 'w', args: {} }, thoughtSignature: 'skip_thought_signature_validator' }] }] };
    expect(estimateSentOpaqueTokens('gemini', body)).toBe(4);
  });

  it("reads a Chat tool call's extra_content.google.thought_signature, not Google's stand-ins", () => {
    const call = (signature: string) => ({ id: 'c', type: 'function', function: { name: 'w', arguments: '{}' }, extra_content: { google: { thought_signature: signature } } });
    const body = { messages: [{ role: 'assistant', content: null, tool_calls: [call(sig(20)), call('context_engineering_is_the_way_to_go'), { id: 'd' }] }] };
    expect(estimateSentOpaqueTokens('openai-chat', body)).toBe(5);
  });
});
