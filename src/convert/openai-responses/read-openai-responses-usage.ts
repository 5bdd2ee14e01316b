import { addImages, type NormalizedUsage } from '../../billing/normalized-usage.js';

/** A Responses `usage` object (openai-node `ResponseUsage`). */
export interface OpenaiResponsesUsage {
  /** Includes `cached_tokens` and `cache_write_tokens`. */
  input_tokens: number;
  /** `image_tokens`: the uncached input that was image, when there was some. */
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number; image_tokens?: number };
  /** Includes `reasoning_tokens` (and `image_tokens`: the pictures an image model wrote, when it wrote some). */
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number; image_tokens?: number };
  total_tokens: number;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function field(object: unknown, key: string): unknown {
  return object !== null && typeof object === 'object' ? (object as Record<string, unknown>)[key] : undefined;
}

/**
 * Wire `usage` → normalized, keeping the wire object in `raw`; undefined when absent (`null` on the
 * `response.created` and `response.in_progress` events). The details are clamped so that the normalized
 * invariants hold even when a compatible vendor reports them inconsistently. `image_tokens` in either details
 * are the image shares (billed at the image prices).
 */
export function readOpenaiResponsesUsage(usage: unknown): NormalizedUsage | undefined {
  if (usage === null || typeof usage !== 'object') return undefined;
  const inputDetails = field(usage, 'input_tokens_details');
  const input = count(field(usage, 'input_tokens'));
  const output = count(field(usage, 'output_tokens'));
  const cacheRead = Math.min(count(field(inputDetails, 'cached_tokens')), input);
  const cacheWrite = Math.min(count(field(inputDetails, 'cache_write_tokens')), input - cacheRead);
  const outputDetails = field(usage, 'output_tokens_details');
  const reasoning = Math.min(count(field(outputDetails, 'reasoning_tokens')), output);
  const normalized: NormalizedUsage = { input: { total: input, cacheRead, cacheWrite }, output: { total: output, reasoning }, raw: usage };
  const imageIn = count(field(inputDetails, 'image_tokens'));
  const imageOut = count(field(outputDetails, 'image_tokens'));
  return imageIn + imageOut === 0 ? normalized : addImages(normalized, imageIn, imageOut);
}

/** Pure: how many web searches a response's output items ran (`web_search_call` items, each one search OpenAI bills). */
export function countWebSearchCalls(output: readonly unknown[] | null | undefined): number {
  let searches = 0;
  for (const item of output ?? []) if (field(item, 'type') === 'web_search_call') searches += 1;
  return searches;
}

/** `usage` with the web searches of the response added, when it ran any. Mutates and returns `usage`. */
export function withWebSearches(usage: NormalizedUsage, searches: number): NormalizedUsage {
  if (searches > 0) usage.webSearches = searches;
  return usage;
}

/**
 * Normalized → wire `usage`: every count has a field, so nothing is lost. `image_tokens` (the fields this
 * reader takes, as OpenAI's image-generation usage names them) only when there were some, as Chat's usage does.
 */
export function formatOpenaiResponsesUsage(usage: NormalizedUsage): OpenaiResponsesUsage {
  const imageIn = usage.input.image ?? 0;
  const imageOut = usage.output.image ?? 0;
  return {
    input_tokens: usage.input.total,
    input_tokens_details: { cached_tokens: usage.input.cacheRead, cache_write_tokens: usage.input.cacheWrite, ...(imageIn > 0 ? { image_tokens: imageIn } : {}) },
    output_tokens: usage.output.total,
    output_tokens_details: { reasoning_tokens: usage.output.reasoning, ...(imageOut > 0 ? { image_tokens: imageOut } : {}) },
    total_tokens: usage.input.total + usage.output.total,
  };
}
