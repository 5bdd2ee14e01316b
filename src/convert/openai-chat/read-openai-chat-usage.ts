import { addAudio, addImages, type NormalizedUsage } from '../../billing/normalized-usage.js';

/** Chat Completions `usage` as OpenAI sends it, with the extensions of compatible vendors we read. */
export interface OpenaiChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** `cached_tokens` are included in `prompt_tokens`. `cache_write_tokens` is OpenRouter's extension. */
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens?: number; audio_tokens?: number; image_tokens?: number };
  /** `reasoning_tokens` (and `audio_tokens` of audio models, `image_tokens` of image models: OpenRouter) are included in `completion_tokens`. */
  completion_tokens_details: { reasoning_tokens: number; audio_tokens?: number; image_tokens?: number };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function field(object: unknown, key: string): unknown {
  return object !== null && typeof object === 'object' ? (object as Record<string, unknown>)[key] : undefined;
}

/**
 * Wire `usage` → normalized, keeping the wire object in `raw`; undefined when absent (`null` in every chunk
 * but the last when `stream_options.include_usage` is set). DeepSeek reports its context cache as
 * `prompt_cache_hit_tokens` (api-docs.deepseek.com/guides/kv_cache), also included in `prompt_tokens`.
 * Audio models report `audio_tokens` in both details (the cached prompt is not split by modality, so the
 * audio billed as audio is what fits in the uncached prompt). `image_tokens` in either details (OpenAI's
 * prompt images; an image model's pictures through OpenRouter) are the image shares, likewise.
 * Supersedes `relay/openai/read-openai-usage.ts` for the converters (that one also reads embeddings usage).
 */
export function readOpenaiChatUsage(usage: unknown): NormalizedUsage | undefined {
  if (usage === null || typeof usage !== 'object') return undefined;
  const promptDetails = field(usage, 'prompt_tokens_details');
  const input = count(field(usage, 'prompt_tokens'));
  const output = count(field(usage, 'completion_tokens'));
  const cacheRead = count(field(promptDetails, 'cached_tokens')) || count(field(usage, 'prompt_cache_hit_tokens'));
  const cacheWrite = count(field(promptDetails, 'cache_write_tokens'));
  const completionDetails = field(usage, 'completion_tokens_details');
  const reasoning = count(field(completionDetails, 'reasoning_tokens'));
  const normalized: NormalizedUsage = {
    input: { total: input, cacheRead: Math.min(cacheRead, input), cacheWrite: Math.min(cacheWrite, input - Math.min(cacheRead, input)) },
    output: { total: output, reasoning: Math.min(reasoning, output) },
    raw: usage,
  };
  addAudio(normalized, count(field(promptDetails, 'audio_tokens')), count(field(completionDetails, 'audio_tokens')));
  return addImages(normalized, count(field(promptDetails, 'image_tokens')), count(field(completionDetails, 'image_tokens')));
}

/** Normalized → wire `usage`; `cache_write_tokens` only when there were cache writes (OpenAI has no such field), `audio_tokens` and `image_tokens` only when there were some. */
export function formatOpenaiChatUsage(usage: NormalizedUsage): OpenaiChatUsage {
  const promptDetails: OpenaiChatUsage['prompt_tokens_details'] = { cached_tokens: usage.input.cacheRead };
  if (usage.input.cacheWrite > 0) promptDetails.cache_write_tokens = usage.input.cacheWrite;
  if (usage.input.audio !== undefined && usage.input.audio > 0) promptDetails.audio_tokens = usage.input.audio;
  if (usage.input.image !== undefined && usage.input.image > 0) promptDetails.image_tokens = usage.input.image;
  const completionDetails: OpenaiChatUsage['completion_tokens_details'] = { reasoning_tokens: usage.output.reasoning };
  if (usage.output.audio !== undefined && usage.output.audio > 0) completionDetails.audio_tokens = usage.output.audio;
  if (usage.output.image !== undefined && usage.output.image > 0) completionDetails.image_tokens = usage.output.image;
  return {
    prompt_tokens: usage.input.total,
    completion_tokens: usage.output.total,
    total_tokens: usage.input.total + usage.output.total,
    prompt_tokens_details: promptDetails,
    completion_tokens_details: completionDetails,
  };
}
