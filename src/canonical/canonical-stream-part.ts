import type { NormalizedUsage } from '../billing/normalized-usage.js';
import type { CanonicalFinishReason } from './canonical-response.js';
import type { ReasoningIssuer } from './canonical-request.js';

/**
 * One piece of a streamed response, in the order produced. Decoders (upstream wire → parts) and encoders
 * (parts → client wire) are pure state machines; they meet only here.
 *
 * Rules every decoder follows:
 * - `start` first, exactly once.
 * - A tool call is `tool-call-start` (id, name) → zero or more `tool-call-delta` → `tool-call-end`; `index`
 *   counts tool calls of this response from 0 (not content blocks). Calls may interleave (parallel calls).
 * - Text and reasoning come as deltas; an encoder opens and closes its own blocks when the kind changes.
 * - `usage` may come several times; the last one is authoritative.
 * - `finish` last, exactly once (decoders emit one at `end()` if the upstream never said).
 */
export type CanonicalStreamPart =
  /**
   * `inputUsage`: the input the upstream reported before its answer (Anthropic's message_start), billed
   * when the answer ends before its final usage; its output is then counted locally. `serviceTier`: the
   * OpenAI tier the opening event names (a Responses stream's `response.created`), billed with a local
   * count when the stream ends before the final usage, which names the tier that served it.
   */
  | { type: 'start'; id: string; model: string; created: number; inputUsage?: NormalizedUsage['input']; serviceTier?: string }
  /** `refusal`: text of a refusal (see CanonicalTextPart). */
  | { type: 'text-delta'; text: string; refusal?: true }
  | { type: 'reasoning-delta'; text: string }
  /** `issuer`: see CanonicalReasoningPart. */
  | { type: 'reasoning-signature'; signature: string; issuer?: ReasoningIssuer }
  | { type: 'reasoning-redacted'; data: string; issuer?: ReasoningIssuer }
  | { type: 'tool-call-start'; index: number; id: string; name: string }
  | { type: 'tool-call-delta'; index: number; argumentsDelta: string }
  | { type: 'tool-call-end'; index: number }
  | { type: 'usage'; usage: NormalizedUsage }
  /**
   * For billing only (encoders write nothing): the input an upstream reported before its final usage,
   * in a report without output counts (Gemini's interim `usageMetadata`) — billed, with the produced text
   * counted locally, when the answer ends before a `usage` part or a finish with usage, which replace it —
   * with the web searches (Gemini grounding) run so far, billed likewise. Also a report that leaves out the
   * count of output already produced (Gemini without `candidatesTokenCount`): it then replaces any earlier
   * `usage` part, and `reasoning` is the reasoning it did count (`thoughtsTokenCount`), billed as reported
   * while the visible output is counted locally.
   */
  | { type: 'input-usage'; input: NormalizedUsage['input']; webSearches?: number; reasoning?: number }
  /**
   * For billing only (encoders write nothing): the web searches the upstream has run so far, all of them
   * (Responses' finished `web_search_call` items) — billed, with the produced text counted locally, when the
   * answer ends before a `usage` part or a finish with usage, which replace it. Sent as each search finishes:
   * a cut stream never reaches the decoder's end.
   */
  | { type: 'web-searches'; count: number }
  /**
   * For billing only (encoders write nothing): output the upstream produced that no other part carries
   * (Gemini candidates after the first), counted with the rest when no usage is reported.
   */
  | { type: 'uncarried-output'; text: string }
  /**
   * For the gateway's memory only (encoders write nothing): the id of an output item the upstream made
   * (a Responses `output_item.added`: `msg_…`, `fc_…`, `rs_…`), which a stored answer keeps upstream and a
   * later `item_reference` can read back; remembered with its owner (continued-response.ts).
   */
  | { type: 'output-item'; id: string }
  | { type: 'finish'; finishReason: CanonicalFinishReason; usage: NormalizedUsage | undefined }
  | { type: 'error'; message: string; code?: string };
