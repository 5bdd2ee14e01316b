import type { CanonicalFinishReason, UnifiedFinishReason } from '../../canonical/canonical-response.js';

/**
 * Gemini `Candidate.finishReason` (ai.google.dev/api/generate-content#FinishReason) ↔ unified reason.
 * Gemini says `STOP` when it stops to call functions, so the caller tells whether calls were made.
 * new-api maps every reason other than STOP and MAX_TOKENS to content_filter (protocols.md §7); here the
 * failures of the model itself (malformed calls) are `error` and the unknown ones `other`.
 */
const unifiedByGeminiReason: Record<string, UnifiedFinishReason> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  IMAGE_RECITATION: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'error',
  UNEXPECTED_TOOL_CALL: 'error',
  TOO_MANY_TOOL_CALLS: 'error',
  MISSING_THOUGHT_SIGNATURE: 'error',
  MALFORMED_RESPONSE: 'error',
  LANGUAGE: 'other',
  OTHER: 'other',
  IMAGE_OTHER: 'other',
  NO_IMAGE: 'other',
  FINISH_REASON_UNSPECIFIED: 'other',
};

export function mapGeminiFinishReason(raw: string | undefined, madeToolCalls: boolean): CanonicalFinishReason {
  if (raw === undefined) return { unified: madeToolCalls ? 'tool_calls' : 'other', raw };
  const unified = Object.hasOwn(unifiedByGeminiReason, raw) ? (unifiedByGeminiReason[raw] ?? 'other') : 'other';
  return { unified: unified === 'stop' && madeToolCalls ? 'tool_calls' : unified, raw };
}

/** Unified → Gemini wire value; a raw value that already is Gemini's is kept as is. */
export function formatGeminiFinishReason(reason: CanonicalFinishReason): string {
  if (reason.raw !== undefined && Object.hasOwn(unifiedByGeminiReason, reason.raw)) return reason.raw;
  switch (reason.unified) {
    case 'stop':
    case 'tool_calls':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    case 'error':
    case 'other':
      return 'OTHER';
    default: {
      const unhandled: never = reason.unified;
      throw new Error(`unhandled finish reason ${String(unhandled)}`);
    }
  }
}
