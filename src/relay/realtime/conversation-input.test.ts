import { describe, expect, it } from 'vitest';
import { ConversationInput } from './conversation-input.js';

describe('ConversationInput', () => {
  it('hands the texts added, less those deleted, oldest first, to one response only', () => {
    const input = new ConversationInput();
    input.add('item_1', 'one');
    input.add(undefined, 'two');
    input.add('item_3', 'three');
    input.add('item_4', '');
    input.delete('item_3');
    input.delete('item_9');
    // The same item echoed twice (beta created, GA added) is one item.
    input.add('item_1', 'one');
    expect(input.take()).toEqual(['two', 'one']);
    expect(input.take()).toEqual([]);
  });

  it('drops the oldest items past its bound, as the upstream truncates them', () => {
    const input = new ConversationInput(10);
    input.add('a', 'aaaa');
    input.add('b', 'bbbb');
    input.add('c', 'cccc');
    expect(input.take()).toEqual(['bbbb', 'cccc']);
    input.add('d', 'd'.repeat(11));
    expect(input.take()).toEqual([]);
    input.add('e', 'eeee');
    input.delete('e');
    input.add('f', 'f'.repeat(10));
    expect(input.take()).toEqual(['f'.repeat(10)]);
  });
});
