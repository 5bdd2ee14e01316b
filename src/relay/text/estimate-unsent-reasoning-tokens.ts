import type { CanonicalReasoningPart } from '../../canonical/canonical-request.js';
import { isReplayableTo } from '../../convert/shared/map-opaque-reasoning.js';
import type { UpstreamTextStyle } from '../../providers/provider-request.js';
import { estimateOpaqueTokens } from '../estimate-opaque-tokens.js';
import { estimateTextTokens } from '../estimate-text-tokens.js';

/** Where a converted request goes: the upstream's style, and whether a Chat channel is sent earlier reasoning back. */
export interface ReasoningTarget {
  style: UpstreamTextStyle;
  replaysReasoning: boolean;
}

/**
 * Pure: the prompt estimate's tokens (estimate-text-tokens.ts for the text, a token per 4 characters for
 * opaque data) of the client's replayed reasoning that a conversion toward `target` does not send, by the
 * rules its request formatter follows (checked against the formatters in the test beside this file):
 * - Anthropic verifies thinking: only a thinking block signed by Anthropic (or by no known issuer) goes,
 *   text and signature; redacted data of that issuer goes alone (the text beside it does not); anything
 *   another vendor signed, and unsigned thinking, is left out whole.
 * - Responses replays only OpenAI's encrypted reasoning (its summary with it); a signature never goes.
 * - Chat has no field for opaque reasoning; the text goes back only to a channel that replays it (DeepSeek).
 * - Gemini is sent every text as a thought part. Its opaque data is counted as sent: which of it goes
 *   (Google's signatures, others behind a tag, stand-ins) is the formatter's to say.
 * Used before the reservation, when no formatter has run yet; the local count takes off what the
 * formatter reports instead.
 */
export function estimateUnsentReasoningTokens(parts: readonly CanonicalReasoningPart[], target: ReasoningTarget): number {
  let tokens = 0;
  for (const part of parts) {
    switch (target.style) {
      case 'anthropic-messages': {
        const replayable = isReplayableTo(part.issuer, 'anthropic');
        const signedThinking = replayable && part.signature !== undefined && part.redactedData === undefined;
        if (!signedThinking) tokens += estimateTextTokens(part.text);
        if (!signedThinking) tokens += estimateOpaqueTokens(part.signature);
        if (!replayable) tokens += estimateOpaqueTokens(part.redactedData);
        break;
      }
      case 'openai-responses':
        if (part.redactedData === undefined || !isReplayableTo(part.issuer, 'openai')) tokens += estimateTextTokens(part.text) + estimateOpaqueTokens(part.redactedData);
        tokens += estimateOpaqueTokens(part.signature);
        break;
      case 'openai-chat':
        if (!target.replaysReasoning) tokens += estimateTextTokens(part.text);
        tokens += estimateOpaqueTokens(part.signature) + estimateOpaqueTokens(part.redactedData);
        break;
      case 'gemini':
        break;
      default: {
        const unhandled: never = target.style;
        throw new Error(`unknown text style ${String(unhandled)}`);
      }
    }
  }
  return tokens;
}
