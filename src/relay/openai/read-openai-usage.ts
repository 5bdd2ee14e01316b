import { addAudio, addImages, type NormalizedUsage } from '../../billing/normalized-usage.js';

interface OpenaiUsageWire {
  /** Responses-style counters (responses, responses/compact). */
  input_tokens?: number;
  output_tokens?: number;
  /** `image_tokens`: gpt-image's input images (the Images API's usage has this shape). */
  input_tokens_details?: { cached_tokens?: number; image_tokens?: number } | null;
  output_tokens_details?: { reasoning_tokens?: number; image_tokens?: number } | null;
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number; audio_tokens?: number; image_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number; audio_tokens?: number; image_tokens?: number } | null;
  /** DeepSeek reports its context cache this way. */
  prompt_cache_hit_tokens?: number;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * OpenAI-style `usage` (chat, completions, embeddings, rerank) → normalized usage; undefined when absent.
 * Chat's audio models report `audio_tokens` in both details; the cached part of the prompt is not split by
 * modality there, so the audio input billed as audio is what fits in the uncached prompt. `image_tokens` in
 * the details of either shape are the image shares, likewise.
 */
export function readOpenaiUsage(usage: unknown): NormalizedUsage | undefined {
  if (usage === null || typeof usage !== 'object') return undefined;
  const wire = usage as OpenaiUsageWire;
  if (wire.input_tokens !== undefined || wire.output_tokens !== undefined) {
    const responsesInput = count(wire.input_tokens);
    const responses: NormalizedUsage = {
      input: { total: responsesInput, cacheRead: Math.min(count(wire.input_tokens_details?.cached_tokens), responsesInput), cacheWrite: 0 },
      output: { total: count(wire.output_tokens), reasoning: count(wire.output_tokens_details?.reasoning_tokens) },
      raw: usage,
    };
    const imageIn = count(wire.input_tokens_details?.image_tokens);
    const imageOut = count(wire.output_tokens_details?.image_tokens);
    return imageIn + imageOut === 0 ? responses : addImages(responses, imageIn, imageOut);
  }
  const input = count(wire.prompt_tokens) || (wire.completion_tokens === undefined ? count(wire.total_tokens) : 0);
  const cacheRead = count(wire.prompt_tokens_details?.cached_tokens) || count(wire.prompt_cache_hit_tokens);
  const normalized: NormalizedUsage = {
    input: { total: input, cacheRead: Math.min(cacheRead, input), cacheWrite: count(wire.prompt_tokens_details?.cache_write_tokens) },
    output: { total: count(wire.completion_tokens), reasoning: count(wire.completion_tokens_details?.reasoning_tokens) },
    raw: usage,
  };
  const audioIn = count(wire.prompt_tokens_details?.audio_tokens);
  const audioOut = count(wire.completion_tokens_details?.audio_tokens);
  if (audioIn + audioOut > 0) addAudio(normalized, audioIn, audioOut);
  const imageIn = count(wire.prompt_tokens_details?.image_tokens);
  const imageOut = count(wire.completion_tokens_details?.image_tokens);
  return imageIn + imageOut === 0 ? normalized : addImages(normalized, imageIn, imageOut);
}
