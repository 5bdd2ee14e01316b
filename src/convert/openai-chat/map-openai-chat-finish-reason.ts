import type { CanonicalFinishReason, UnifiedFinishReason } from '../../canonical/canonical-response.js';
import type { Converted } from '../../canonical/conversion.js';

/** The values Chat Completions clients know (OpenAI's `finish_reason` enum, minus legacy `function_call`). */
export type OpenaiChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

const unifiedByWire: Record<string, UnifiedFinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
  // DeepSeek: the request was cut short by a lack of inference capacity (api-docs.deepseek.com, finish_reason).
  insufficient_system_resource: 'error',
};

/** Wire `finish_reason` (OpenAI, DeepSeek and other compatibles) → `{ unified, raw }`. */
export function mapOpenaiChatFinishReason(raw: string | null | undefined): CanonicalFinishReason {
  if (raw === null || raw === undefined) return { unified: 'other', raw: undefined };
  return { unified: unifiedByWire[raw] ?? 'other', raw };
}

/** `{ unified, raw }` → a value every Chat Completions client accepts; `error`/`other` have none, so they warn. */
export function mapToOpenaiChatFinishReason(reason: CanonicalFinishReason): Converted<OpenaiChatFinishReason> {
  switch (reason.unified) {
    case 'stop':
    case 'length':
    case 'tool_calls':
    case 'content_filter':
      return { value: reason.unified, warnings: [] };
    case 'error':
    case 'other':
      return {
        value: 'stop',
        warnings: [`finish reason ${reason.unified} (raw ${JSON.stringify(reason.raw ?? null)}) has no Chat Completions value: sent as "stop"`],
      };
    default: {
      const unhandled: never = reason.unified;
      throw new Error(`unhandled finish reason ${String(unhandled)}`);
    }
  }
}
