import { describe, expect, it } from 'vitest';
import { finalToolTurnLacksThinking } from './final-tool-turn-lacks-thinking.js';

const user = { role: 'user' as const, content: [{ type: 'text', text: 'Weather?' }] };
const use = { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} };
const results = { role: 'user' as const, content: [{ type: 'tool_result', tool_use_id: 'toolu_1' }] };

describe('finalToolTurnLacksThinking', () => {
  it('is true for a request answering tool calls of a turn that starts with tool_use or text', () => {
    expect(finalToolTurnLacksThinking([user, { role: 'assistant', content: [use] }, results])).toBe(true);
    expect(finalToolTurnLacksThinking([user, { role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }, use] }, results])).toBe(true);
  });

  it('is false when that turn starts with thinking or redacted thinking', () => {
    expect(finalToolTurnLacksThinking([user, { role: 'assistant', content: [{ type: 'thinking', thinking: 'Hm', signature: 'S' }, use] }, results])).toBe(false);
    expect(finalToolTurnLacksThinking([user, { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'R' }, use] }, results])).toBe(false);
  });

  it('is false outside a tool loop: a plain user turn last, an assistant prefill last, or no tool_use', () => {
    expect(finalToolTurnLacksThinking([user])).toBe(false);
    expect(finalToolTurnLacksThinking([user, { role: 'assistant', content: [use] }, results, { role: 'assistant', content: [{ type: 'text', text: 'Sunny.' }] }, user])).toBe(false);
    expect(finalToolTurnLacksThinking([user, { role: 'assistant', content: [use] }])).toBe(false);
    expect(finalToolTurnLacksThinking([user, { role: 'assistant', content: [{ type: 'text', text: 'Hi' }] }, user])).toBe(false);
  });
});
