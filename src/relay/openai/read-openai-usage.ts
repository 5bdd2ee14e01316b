import type { NormalizedUsage } from '../../billing/normalized-usage.js';
import { readOpenaiChatUsage } from '../../convert/openai-chat/read-openai-chat-usage.js';
import { readOpenaiResponsesUsage } from '../../convert/openai-responses/read-openai-responses-usage.js';

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * Any OpenAI-style endpoint's `usage` (chat, completions, embeddings, rerank, moderations, images,
 * responses/compact) → normalized usage; undefined when absent. One reader per wire shape: the
 * `input_tokens` / `output_tokens` shape is read as Responses usage (the Images API writes it so), the
 * `prompt_tokens` / `completion_tokens` shape as Chat usage (audio and image details, cache reads and
 * writes, reasoning). Embeddings and rerank servers that report only `total_tokens` (no completion) are
 * billed that as input.
 */
export function readOpenaiUsage(usage: unknown): NormalizedUsage | undefined {
  if (usage === null || typeof usage !== 'object') return undefined;
  const wire = usage as { input_tokens?: unknown; output_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown };
  if (wire.input_tokens !== undefined || wire.output_tokens !== undefined) return readOpenaiResponsesUsage(usage);
  const read = readOpenaiChatUsage(usage);
  if (read !== undefined && read.input.total === 0 && wire.completion_tokens === undefined) read.input.total = count(wire.total_tokens);
  return read;
}
