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
}
