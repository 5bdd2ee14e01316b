import type { NormalizedUsage } from '../billing/normalized-usage.js';
import type { CanonicalAssistantPart } from './canonical-request.js';

/** Finish reason normalized, with the vendor's raw value kept (CONVENTIONS.md §6). */
export type UnifiedFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' | 'other';

export interface CanonicalFinishReason {
  unified: UnifiedFinishReason;
  /** The upstream's own value (`end_turn`, `MAX_TOKENS`, `length` …), undefined when it sent none. */
  raw: string | undefined;
}

export interface CanonicalResponse {
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
  content: CanonicalAssistantPart[];
  finishReason: CanonicalFinishReason;
  /** As the upstream reported it; undefined when it reported none (billing then counts locally). */
  usage: NormalizedUsage | undefined;
  /**
   * For billing only (formatters write nothing), beside an undefined `usage`: a report that left out the
   * count of the output the answer produced (Gemini without `candidatesTokenCount`). Its input, the
   * reasoning it did count (`thoughtsTokenCount`) and its web searches are billed as reported, the visible
   * output counted locally — as a stream's `input-usage` part is (canonical-stream-part.ts).
   */
  inputUsage?: { input: NormalizedUsage['input']; reasoning?: number; webSearches?: number };
  /** For billing only: the text of candidates no part carries (Gemini `candidateCount` > 1), counted when no usage is reported. */
  uncarriedOutput?: string;
  /** For the gateway's memory only (formatters write nothing): the ids of a Responses answer's output items. */
  outputItemIds?: string[];
}
