import { describe, expect, it } from 'vitest';
import { conversationItemAdded, conversationItemDeleted, conversationItemText } from './read-conversation-input.js';

describe('conversationItemText', () => {
  it("reads a message's text parts and a tool result's output, never audio or images", () => {
    expect(conversationItemText({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'a' }, { type: 'input_image', image_url: 'data:' }, { type: 'input_text', text: 'b' }] }, false)).toBe('a\nb');
    expect(conversationItemText({ type: 'message', role: 'user', content: [{ type: 'input_audio', transcript: 'spoken words' }] }, false)).toBe('');
    expect(conversationItemText({ type: 'function_call_output', call_id: 'c', output: 'sunny' }, false)).toBe('sunny');
    expect(conversationItemText({ type: 'function_call', name: 'f', arguments: '{}' }, true)).toBe('');
    expect(conversationItemText('text', true)).toBe('');
  });

  it("reads an assistant message's text only when asked (the upstream echoes the model's own answers as items too)", () => {
    const assistant = { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'GA' }, { type: 'text', text: 'beta' }] };
    expect(conversationItemText(assistant, false)).toBe('');
    expect(conversationItemText(assistant, true)).toBe('GA\nbeta');
  });
});

describe('conversationItemAdded / conversationItemDeleted', () => {
  it('reads GA and beta item events, and no other', () => {
    const item = { id: 'item_1', type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello' }] };
    expect(conversationItemAdded({ type: 'conversation.item.added', item })).toEqual({ itemId: 'item_1', text: 'Hello' });
    expect(conversationItemAdded({ type: 'conversation.item.created', previous_item_id: null, item: { ...item, id: undefined } })).toEqual({ itemId: undefined, text: 'Hello' });
    expect(conversationItemAdded({ type: 'conversation.item.done', item })).toBeUndefined();
    expect(conversationItemAdded({ type: 'conversation.item.added' })).toBeUndefined();
    expect(conversationItemDeleted({ type: 'conversation.item.deleted', item_id: 'item_1' })).toBe('item_1');
    expect(conversationItemDeleted({ type: 'conversation.item.deleted' })).toBeUndefined();
    expect(conversationItemDeleted({ type: 'conversation.item.added', item_id: 'item_1' })).toBeUndefined();
  });
});
