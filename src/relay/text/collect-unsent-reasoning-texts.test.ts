import { describe, expect, it } from 'vitest';
import { dropForeignAnthropicReasoning } from '../../convert/anthropic-messages/drop-foreign-anthropic-reasoning.js';
import { dropForeignResponsesReasoning } from '../../convert/openai-responses/drop-foreign-responses-reasoning.js';
import { collectUnsentReasoningTexts } from './collect-unsent-reasoning-texts.js';

const thinking = (text: string, signature: string) => ({ type: 'thinking', thinking: text, signature });

describe('collectUnsentReasoningTexts', () => {
  it('returns the thinking of the Anthropic blocks the cleaning dropped (foreign or unsigned), not of those it kept', () => {
    const body = {
      messages: [
        { role: 'user', content: 'Q' },
        { role: 'assistant', content: [thinking('Google thought this.', 'signature:google:abc'), thinking('Anthropic thought this.', 'signature:anthropic:EqQB'), thinking('Nobody signed this.', ''), { type: 'text', text: 'A' }] },
      ],
    };
    const sent = dropForeignAnthropicReasoning(body)!.value;
    expect(collectUnsentReasoningTexts('anthropic-messages', body, sent)).toEqual(['Google thought this.', 'Nobody signed this.']);
  });

  it('takes one text off for each dropped block: a kept block repeating the same text is still sent', () => {
    const body = { messages: [{ role: 'assistant', content: [thinking('Same.', 'signature:google:abc'), thinking('Same.', 'EqQB')] }] };
    const sent = dropForeignAnthropicReasoning(body)!.value;
    expect(collectUnsentReasoningTexts('anthropic-messages', body, sent)).toEqual(['Same.']);
  });

  it("returns a dropped Responses reasoning item's summary and content text, as the prompt's collector joins them", () => {
    const item = (text: string, encrypted: string) => ({ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text }, { type: 'summary_text', text: 'Then.' }], encrypted_content: encrypted });
    const body = { input: [{ role: 'user', content: 'Q' }, item('Claude first.', 'signature:anthropic:EqQB'), item('OpenAI first.', 'redacted:openai:gAAAA')] };
    const sent = dropForeignResponsesReasoning(body)!.value;
    expect(collectUnsentReasoningTexts('openai-responses', body, sent)).toEqual(['Claude first.\n\nThen.']);
  });

  it('returns nothing when every text goes (a body left as sent; Gemini and Chat cleanings touch signatures only)', () => {
    const body = { messages: [{ role: 'assistant', content: [thinking('Kept.', 'EqQB')] }], contents: [{ role: 'model', parts: [{ text: 'T', thought: true }] }] };
    expect(collectUnsentReasoningTexts('anthropic-messages', body, body)).toEqual([]);
    expect(collectUnsentReasoningTexts('gemini', body, { contents: [] })).toEqual([]);
    expect(collectUnsentReasoningTexts('openai-chat', body, { messages: [] })).toEqual([]);
  });
});
