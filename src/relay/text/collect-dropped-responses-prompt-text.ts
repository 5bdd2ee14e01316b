import { isRecord } from '../../convert/shared/is-record.js';
import { estimateOpaqueTokens } from '../estimate-opaque-tokens.js';
import type { PromptText } from '../openai/collect-prompt-text.js';

/**
 * Pure: the opaque input of a Responses body that the canonical parser drops but a Responses channel is
 * sent as is, and bills: the `encrypted_content` of every `input` item other than a reasoning item (whose
 * own the canonical form carries) — a `compaction` item, the whole earlier conversation compacted
 * (platform.openai.com/docs/guides/conversation-state, "Compaction"). At a token per 4 characters
 * (estimate-opaque-tokens.ts), read from the already-parsed body.
 */
export function collectDroppedResponsesPromptText(body: Record<string, unknown>): PromptText {
  let extraTokens = 0;
  for (const item of Array.isArray(body.input) ? body.input : []) {
    if (isRecord(item) && item.type !== 'reasoning' && typeof item.encrypted_content === 'string') extraTokens += estimateOpaqueTokens(item.encrypted_content);
  }
  return { texts: [], extraTokens, opaqueTokens: extraTokens };
}
