import type { CanonicalFinishReason } from '../../canonical/canonical-response.js';
import type { Converted } from '../../canonical/conversion.js';

/** How a Responses object ends: its `status`, and `incomplete_details` / `error` when it did not complete. */
export interface OpenaiResponsesOutcome {
  status: 'completed' | 'incomplete' | 'failed';
  incompleteDetails: { reason: 'max_output_tokens' | 'content_filter' } | null;
}

/**
 * A Responses `status` (+ `incomplete_details.reason`) → `{ unified, raw }`. Responses has no finish reason:
 * a turn that ends in function calls is simply `completed`, so `hasToolCalls` tells the two apart (as the
 * Vercel AI SDK does). `raw` is the incomplete reason when there is one, else the status.
 */
export function mapOpenaiResponsesFinishReason(
  status: string | null | undefined,
  incompleteReason: string | null | undefined,
  hasToolCalls: boolean,
): CanonicalFinishReason {
  if (incompleteReason !== null && incompleteReason !== undefined) {
    if (incompleteReason === 'max_output_tokens') return { unified: 'length', raw: incompleteReason };
    if (incompleteReason === 'content_filter') return { unified: 'content_filter', raw: incompleteReason };
    return { unified: 'other', raw: incompleteReason };
  }
  switch (status) {
    case 'completed':
      return { unified: hasToolCalls ? 'tool_calls' : 'stop', raw: status };
    case 'failed':
      return { unified: 'error', raw: status };
    case null:
    case undefined:
      return { unified: hasToolCalls ? 'tool_calls' : 'other', raw: undefined };
    default:
      // cancelled, queued, in_progress, incomplete without a reason
      return { unified: 'other', raw: status };
  }
}

/** `{ unified, raw }` → the status a Responses client sees; `other` has none, so it warns. */
export function mapToOpenaiResponsesOutcome(reason: CanonicalFinishReason): Converted<OpenaiResponsesOutcome> {
  switch (reason.unified) {
    case 'stop':
    case 'tool_calls':
      return { value: { status: 'completed', incompleteDetails: null }, warnings: [] };
    case 'length':
      return { value: { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' } }, warnings: [] };
    case 'content_filter':
      return { value: { status: 'incomplete', incompleteDetails: { reason: 'content_filter' } }, warnings: [] };
    case 'error':
      return { value: { status: 'failed', incompleteDetails: null }, warnings: [] };
    case 'other':
      return {
        value: { status: 'completed', incompleteDetails: null },
        warnings: [`finish reason other (raw ${JSON.stringify(reason.raw ?? null)}) has no Responses status: sent as "completed"`],
      };
    default: {
      const unhandled: never = reason.unified;
      throw new Error(`unhandled finish reason ${String(unhandled)}`);
    }
  }
}
