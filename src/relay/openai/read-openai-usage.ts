import type { NormalizedUsage } from '../../billing/normalized-usage.js';
import { readOpenaiChatUsage } from '../../convert/openai-chat/read-openai-chat-usage.js';
import { readOpenaiResponsesUsage } from '../../convert/openai-responses/read-openai-responses-usage.js';

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

const billsEverything: ReadOpenaiUsageOptions = {};

export interface ReadOpenaiUsageOptions {
  /** False: the endpoint produces no output tokens (embeddings, moderations, rerank); any reported are not billed. */
  billsOutput?: boolean;
}

/**
 * Any OpenAI-style endpoint's `usage` (chat, completions, embeddings, rerank, moderations, images,
 * responses/compact) → normalized usage; undefined when absent. One reader per wire shape: the
 * `input_tokens` / `output_tokens` shape is read as Responses usage (the Images API writes it so), the
 * `prompt_tokens` / `completion_tokens` shape as Chat usage (audio and image details, cache reads and
 * writes, reasoning). Embeddings and rerank servers that report only `total_tokens` (no completion) are
 * billed that as input. A report that counts nothing at all (every total 0) is no report: no request the
 * upstream answered costs nothing, so the gateway counts it locally, as new-api uses its own estimate when
 * `prompt_tokens` is 0.
 */
export function readOpenaiUsage(usage: unknown, options: ReadOpenaiUsageOptions = billsEverything): NormalizedUsage | undefined {
  if (usage === null || typeof usage !== 'object') return undefined;
  const wire = usage as { input_tokens?: unknown; output_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown };
  let read: NormalizedUsage | undefined;
  if (wire.input_tokens !== undefined || wire.output_tokens !== undefined) read = readOpenaiResponsesUsage(usage);
  else {
    read = readOpenaiChatUsage(usage);
    if (read !== undefined && read.input.total === 0 && wire.completion_tokens === undefined) read.input.total = count(wire.total_tokens);
  }
  if (read === undefined) return undefined;
  // Some embeddings servers report completion_tokens (= prompt_tokens): an embedding has no output to bill.
  if (options.billsOutput === false) read = { ...read, output: { total: 0, reasoning: 0 } };
  return read.input.total === 0 && read.output.total === 0 ? undefined : read;
}
