import { describe, expect, it } from 'vitest';
import { noteChatMessageText } from './note-chat-message-text.js';

function noted(message: Record<string, unknown>): [string, boolean][] {
  const seen: [string, boolean][] = [];
  noteChatMessageText(message, (text, audio) => seen.push([text, audio]));
  return seen;
}

describe('noteChatMessageText', () => {
  it('notes content, refusal, reasoning, a legacy function call and the audio transcript (as audio)', () => {
    expect(noted({ content: 'a', refusal: 'b', reasoning_content: 'c', function_call: { name: 'f', arguments: '{}' }, audio: { id: 'x', data: 'AAAA', transcript: 'spoken' } })).toEqual([
      ['a', false],
      ['b', false],
      ['c', false],
      ['f', false],
      ['{}', false],
      ['spoken', true],
    ]);
  });

  it('reads `reasoning` when there is no `reasoning_content`, and one of them only when both are sent', () => {
    expect(noted({ reasoning: 'r' })).toEqual([['r', false]]);
    expect(noted({ reasoning_content: 'same', reasoning: 'same' })).toEqual([['same', false]]);
    expect(noted({ reasoning_content: '', reasoning: 'r' })).toEqual([['r', false]]);
  });

  it('ignores nulls and other shapes', () => {
    expect(noted({ content: null, refusal: null, audio: null, function_call: null, reasoning: 3 })).toEqual([]);
    expect(noted({ audio: { id: 'x' } })).toEqual([]);
  });
});
