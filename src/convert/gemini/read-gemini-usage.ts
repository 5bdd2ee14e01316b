import { addAudio, addImages, type NormalizedUsage } from '../../billing/normalized-usage.js';
import { isRecord } from '../shared/is-record.js';
import type { Converted } from '../../canonical/conversion.js';
import { geminiUsageMetadataSchema } from './gemini-wire-schema.js';

/**
 * Gemini `usageMetadata` (ai.google.dev/api/generate-content#UsageMetadata) ↔ normalized usage.
 * `promptTokenCount` already includes `cachedContentTokenCount`; `candidatesTokenCount` excludes
 * `thoughtsTokenCount`, so output = candidates + thoughts. `toolUsePromptTokenCount` (results of Google's
 * own tools fed back to the model) is outside the prompt count but billed as input, so input adds it.
 * The `AUDIO` entries of `promptTokensDetails` (less those of `cacheTokensDetails`) and of
 * `candidatesTokensDetails` are the audio shares, billed at the audio prices; their `IMAGE` entries likewise
 * the image shares (an image model's picture: 1,290 tokens at 1K), billed at the image prices.
 */
function count(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/** The wire object (kept untouched as `raw`) → normalized; undefined when it holds no token counts (Vertex
 * sends `{trafficType}` alone on early chunks). */
export function readGeminiUsage(usageMetadata: unknown): NormalizedUsage | undefined {
  const parsed = geminiUsageMetadataSchema.safeParse(usageMetadata);
  if (!parsed.success) return undefined;
  const usage = parsed.data;
  if (usage.promptTokenCount === undefined && usage.candidatesTokenCount === undefined && usage.totalTokenCount === undefined) return undefined;
  const prompt = count(usage.promptTokenCount) + count(usage.toolUsePromptTokenCount);
  const reasoning = count(usage.thoughtsTokenCount);
  const normalized: NormalizedUsage = {
    input: { total: prompt, cacheRead: Math.min(count(usage.cachedContentTokenCount), prompt), cacheWrite: 0 },
    output: { total: count(usage.candidatesTokenCount) + reasoning, reasoning },
    raw: usageMetadata,
  };
  const audioIn = Math.max(0, modalityCount(usage.promptTokensDetails, 'AUDIO') - modalityCount(usage.cacheTokensDetails, 'AUDIO'));
  addAudio(normalized, audioIn, modalityCount(usage.candidatesTokensDetails, 'AUDIO'));
  const imageIn = Math.max(0, modalityCount(usage.promptTokensDetails, 'IMAGE') - modalityCount(usage.cacheTokensDetails, 'IMAGE'));
  return addImages(normalized, imageIn, modalityCount(usage.candidatesTokensDetails, 'IMAGE'));
}

/**
 * Pure: whether a `usageMetadata` counts the answer's output (`candidatesTokenCount` or
 * `thoughtsTokenCount`). Gemini 2.0-class streams, and some relays, report the prompt alone on every chunk
 * but the last: such a report is the input, not a final usage of 0 output. Reads the object as parsed, no
 * more.
 */
export function reportsGeminiOutput(usageMetadata: unknown): boolean {
  return isRecord(usageMetadata) && (typeof usageMetadata.candidatesTokenCount === 'number' || typeof usageMetadata.thoughtsTokenCount === 'number');
}

/**
 * Pure: whether a `usageMetadata` counts the answer's candidates (`candidatesTokenCount`, a number above 0).
 * Gemini leaves it out when it counts none (an empty or blocked answer, a thinking model that only thought),
 * so one that leaves it out after text was produced has not counted that text.
 */
export function reportsGeminiCandidates(usageMetadata: unknown): boolean {
  return isRecord(usageMetadata) && typeof usageMetadata.candidatesTokenCount === 'number' && usageMetadata.candidatesTokenCount > 0;
}

/**
 * The tokens of one modality in a `ModalityTokenCount` list (ai.google.dev/api/generate-content#ModalityTokenCount),
 * read leniently: relays write an empty list as `null`, and a malformed list must cost only the modality
 * split, never the counts beside it.
 */
function modalityCount(details: unknown, modality: 'AUDIO' | 'IMAGE'): number {
  if (!Array.isArray(details)) return 0;
  let total = 0;
  for (const detail of details) {
    if (isRecord(detail) && detail.modality === modality && typeof detail.tokenCount === 'number') total += count(detail.tokenCount);
  }
  return total;
}

/**
 * Pure: `next`, a later report of the same streamed answer, with the audio and image shares of `earlier`
 * on each side whose modality list `usageMetadata` leaves out or writes as `null` (a stream may detail its
 * usage on some chunks only, and usage is cumulative, so a share once reported stays). A list that is
 * present is believed, even without such entries. Mutates and returns `next`; the shares are clamped as {@link addAudio} and
 * {@link addImages} clamp them.
 */
export function keepEarlierShares(next: NormalizedUsage, earlier: NormalizedUsage | undefined, usageMetadata: unknown): NormalizedUsage {
  if (earlier === undefined || !isRecord(usageMetadata)) return next;
  if (!Array.isArray(usageMetadata.promptTokensDetails)) {
    addAudio(next, earlier.input.audio ?? 0, 0);
    addImages(next, earlier.input.image ?? 0, 0);
  }
  if (!Array.isArray(usageMetadata.candidatesTokensDetails)) {
    addAudio(next, 0, earlier.output.audio ?? 0);
    addImages(next, 0, earlier.output.image ?? 0);
  }
  return next;
}

/** Pure: `usage` with the grounding searches an answer ran (billed at the `web_search` price); a copy when there are any. */
export function withGroundingSearches(usage: NormalizedUsage, searches: number): NormalizedUsage {
  return searches > 0 ? { ...usage, webSearches: searches } : usage;
}

export function formatGeminiUsage(usage: NormalizedUsage): Converted<Record<string, unknown>> {
  const warnings: string[] = [];
  if (usage.input.cacheWrite > 0) {
    warnings.push(`usage: Gemini has no cache-write count; ${usage.input.cacheWrite} cache-write tokens stay in promptTokenCount only`);
  }
  const reasoning = Math.min(usage.output.reasoning, usage.output.total);
  const candidates = usage.output.total - reasoning;
  const wire: Record<string, unknown> = {
    promptTokenCount: usage.input.total,
    candidatesTokenCount: candidates,
    totalTokenCount: usage.input.total + usage.output.total,
  };
  if (usage.input.cacheRead > 0) wire.cachedContentTokenCount = usage.input.cacheRead;
  if (reasoning > 0) wire.thoughtsTokenCount = reasoning;
  const promptDetails = modalityDetails(usage.input.total, usage.input.image, usage.input.audio);
  if (promptDetails !== undefined) wire.promptTokensDetails = promptDetails;
  const candidatesDetails = modalityDetails(candidates, usage.output.image, usage.output.audio);
  if (candidatesDetails !== undefined) wire.candidatesTokensDetails = candidatesDetails;
  return { value: wire, warnings };
}

/**
 * Gemini's modality split of a count (`promptTokensDetails`, `candidatesTokensDetails`), written only when
 * some of it was image or audio (an all-text count says nothing a split would add): the rest is TEXT.
 * Read back by {@link readGeminiUsage}, it gives the same image and audio shares (no `cacheTokensDetails`
 * is written: the shares are already the uncached ones).
 */
function modalityDetails(total: number, image: number | undefined, audio: number | undefined): { modality: string; tokenCount: number }[] | undefined {
  const imageTokens = image ?? 0;
  const audioTokens = audio ?? 0;
  if (imageTokens <= 0 && audioTokens <= 0) return undefined;
  const details = [{ modality: 'TEXT', tokenCount: Math.max(0, total - imageTokens - audioTokens) }];
  if (imageTokens > 0) details.push({ modality: 'IMAGE', tokenCount: imageTokens });
  if (audioTokens > 0) details.push({ modality: 'AUDIO', tokenCount: audioTokens });
  return details;
}
