import type { NormalizedUsage } from '../../billing/normalized-usage.js';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import type { Converted } from '../../canonical/conversion.js';
import { geminiResponseSchema } from './gemini-wire-schema.js';
import { makeGeminiToolCallId } from './make-gemini-tool-call-id.js';
import { mapGeminiFinishReason } from './map-gemini-finish-reason.js';
import { parseGeminiModelParts } from './parse-gemini-model-parts.js';
import { readGeminiCreateTime } from './read-gemini-create-time.js';
import { countGroundingSearches, groundingQueriesOf } from './count-grounding-searches.js';
import { readGeminiUsage, withGroundingSearches } from './read-gemini-usage.js';

/**
 * An upstream GenerateContentResponse (ai.google.dev/api/generate-content#generatecontentresponse) →
 * canonical. Only the first candidate is read (the gateway never asks for more). A prompt blocked before
 * any candidate (`promptFeedback.blockReason`) is a content_filter stop with the block reason as raw.
 */
export function parseGeminiResponse(body: unknown): Converted<CanonicalResponse> {
  const warnings: string[] = [];
  const parsed = geminiResponseSchema.safeParse(body);
  if (!parsed.success) {
    warnings.push(`upstream response is not a Gemini GenerateContentResponse: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return { value: { id: '', model: '', created: 0, content: [], finishReason: { unified: 'error', raw: undefined }, usage: undefined }, warnings };
  }
  const wire = parsed.data;
  if (wire.error !== undefined) warnings.push(`upstream sent an error in its response body: ${wire.error.message ?? wire.error.status ?? 'unknown'}`);
  const candidates = wire.candidates ?? [];
  if (candidates.length > 1) warnings.push(`${candidates.length} candidates: only the first is carried`);
  const candidate = candidates[0];
  if (candidate?.groundingMetadata !== undefined) warnings.push('groundingMetadata (search grounding sources) has no canonical form');
  if (candidate?.citationMetadata !== undefined) warnings.push('citationMetadata has no canonical form');

  const content = parseGeminiModelParts(candidate?.content?.parts ?? [], (ordinal) => makeGeminiToolCallId(wire.responseId, ordinal), warnings);
  const blockReason = wire.promptFeedback?.blockReason;
  const finishReason =
    candidate?.finishReason === undefined && blockReason !== undefined
      ? { unified: 'content_filter' as const, raw: blockReason }
      : mapGeminiFinishReason(candidate?.finishReason, content.some((part) => part.type === 'tool-call'));
  return {
    value: {
      id: wire.responseId ?? '',
      model: wire.modelVersion ?? '',
      created: readGeminiCreateTime(wire.createTime),
      content,
      finishReason: wire.error !== undefined && candidate === undefined ? { unified: 'error', raw: wire.error.status } : finishReason,
      usage: groundedUsage(readGeminiUsage((body as { usageMetadata?: unknown }).usageMetadata), candidate?.groundingMetadata, wire.modelVersion ?? undefined),
    },
    warnings,
  };
}

/** The usage with the Google searches the answer's grounding ran. */
function groundedUsage(usage: NormalizedUsage | undefined, groundingMetadata: unknown, modelVersion: string | undefined): NormalizedUsage | undefined {
  if (usage === undefined) return undefined;
  return withGroundingSearches(usage, countGroundingSearches(new Set(groundingQueriesOf(groundingMetadata)), modelVersion));
}
