import type { Converted } from '../../canonical/conversion.js';
import type { CanonicalFinishReason, UnifiedFinishReason } from '../../canonical/canonical-response.js';

/**
 * Anthropic `stop_reason` ↔ unified finish reason (protocols.md §6.2). `pause_turn` (a server-tool loop paused)
 * and `model_context_window_exceeded` follow the §6.2 suggestion: stop and length. The raw value is always kept.
 */
const unifiedByStopReason = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
} as const satisfies Record<string, UnifiedFinishReason>;

export type AnthropicStopReason = keyof typeof unifiedByStopReason;

function isAnthropicStopReason(value: string): value is AnthropicStopReason {
  return Object.hasOwn(unifiedByStopReason, value);
}

export function mapAnthropicStopReason(stopReason: string | null | undefined): CanonicalFinishReason {
  if (stopReason == null) return { unified: 'other', raw: undefined };
  return { unified: isAnthropicStopReason(stopReason) ? unifiedByStopReason[stopReason] : 'other', raw: stopReason };
}

/**
 * The reason an Anthropic client is told a turn ended, from what the turn held: a turn that ends in tool
 * calls says `tool_use` (Anthropic SDK agent loops key on it, while Gemini reports STOP for function calls);
 * one whose text is an OpenAI refusal (Chat `message.refusal`, a Responses `refusal` part: the model
 * declined, and the upstream still says `stop` / `completed`) says `refusal`, as Claude's own refusals do.
 */
export function finishReasonOfTurn(finishReason: CanonicalFinishReason, turn: { toolCalls: boolean; refusal: boolean }): CanonicalFinishReason {
  if (finishReason.unified !== 'stop') return finishReason;
  if (turn.toolCalls) return { unified: 'tool_calls', raw: finishReason.raw };
  if (turn.refusal) return { unified: 'content_filter', raw: finishReason.raw };
  return finishReason;
}

/** Keeps an Anthropic raw value when it agrees with `unified` (so `stop_sequence`, `pause_turn` survive), else maps `unified`. */
export function formatAnthropicStopReason(finishReason: CanonicalFinishReason): Converted<AnthropicStopReason> {
  const { unified, raw } = finishReason;
  if (raw !== undefined && isAnthropicStopReason(raw) && unifiedByStopReason[raw] === unified) return { value: raw, warnings: [] };
  switch (unified) {
    case 'stop':
      return { value: 'end_turn', warnings: [] };
    case 'length':
      return { value: 'max_tokens', warnings: [] };
    case 'tool_calls':
      return { value: 'tool_use', warnings: [] };
    case 'content_filter':
      return { value: 'refusal', warnings: [] };
    case 'error':
    case 'other':
      return { value: 'end_turn', warnings: [`finish reason '${unified}' (raw ${JSON.stringify(raw ?? null)}) has no Anthropic stop_reason: sent end_turn`] };
    default: {
      const unhandled: never = unified;
      throw new Error(`unhandled finish reason ${String(unhandled)}`);
    }
  }
}
