import type { AnthropicWireMessage } from './format-anthropic-messages-content.js';

/**
 * Whether the request continues a tool loop (it ends on a user turn of `tool_result` blocks) whose assistant
 * turn does not start with a `thinking` / `redacted_thinking` block. With thinking on, Anthropic refuses
 * such a request ("When `thinking` is enabled, a final `assistant` message must start with a thinking
 * block"; docs: extended thinking, "Preserving thinking blocks"), which happens whenever the client's
 * style cannot hand back the signed thinking of that turn (an OpenAI Chat client has no field for it).
 */
export function finalToolTurnLacksThinking(messages: readonly AnthropicWireMessage[]): boolean {
  const last = messages.at(-1);
  const assistant = messages.at(-2);
  if (last?.role !== 'user' || assistant?.role !== 'assistant') return false;
  if (!last.content.some((block) => block.type === 'tool_result')) return false;
  if (!assistant.content.some((block) => block.type === 'tool_use')) return false;
  const first = assistant.content[0]?.type;
  return first !== 'thinking' && first !== 'redacted_thinking';
}
