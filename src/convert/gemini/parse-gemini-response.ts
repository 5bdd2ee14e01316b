import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import type { Converted } from '../../canonical/conversion.js';
import { geminiResponseSchema } from './gemini-wire-schema.js';
import { newCallIdNonce } from '../shared/new-call-id-nonce.js';
import { makeGeminiToolCallId } from './make-gemini-tool-call-id.js';
import { mapGeminiFinishReason } from './map-gemini-finish-reason.js';
import { parseGeminiModelParts } from './parse-gemini-model-parts.js';
import { readGeminiCreateTime } from './read-gemini-create-time.js';
import { countGroundingSearches, groundingQueriesOf } from './count-grounding-searches.js';
import { readGeminiUsage, reportsGeminiCandidates, withGroundingSearches } from './read-gemini-usage.js';
import { collectUncarriedCandidateText } from './collect-uncarried-candidate-text.js';

/**
 * An upstream GenerateContentResponse (ai.google.dev/api/generate-content#generatecontentresponse) →
 * canonical. Only the first candidate is read (the gateway never asks for more); the text of the others
 * is kept for billing (`uncarriedOutput`). A prompt blocked before any candidate (`promptFeedback.blockReason`)
 * is a content_filter stop with the block reason as raw. A `usageMetadata` without `candidatesTokenCount`
 * after text or a call was produced has not counted that output: it is no usage, only `inputUsage`, as the
 * stream decoder reads the same report (decode-gemini-stream.ts).
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

  const nonce = newCallIdNonce();
  const content = parseGeminiModelParts(candidate?.content?.parts ?? [], (ordinal) => makeGeminiToolCallId(wire.responseId, ordinal, nonce), warnings);
  const uncarried = collectUncarriedCandidateText(candidates);
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
      ...readUsage(body, content, uncarried, candidate?.groundingMetadata, wire.modelVersion ?? undefined),
      ...(uncarried === '' ? {} : { uncarriedOutput: uncarried }),
    },
    warnings,
  };
}

/**
 * The answer's usage, or, when its report leaves out `candidatesTokenCount` though the answer produced
 * text or a call (Gemini writes it only when it counts candidates; some relays drop it; a thinking model's
 * report may carry `thoughtsTokenCount` alone), the input, thoughts and searches it did count: billed
 * with the produced output counted locally, never as 0 output. An empty or blocked answer's prompt-only
 * report, or a thinking-only one's, is its usage.
 */
function readUsage(
  body: unknown,
  content: CanonicalResponse['content'],
  uncarried: string,
  groundingMetadata: unknown,
  modelVersion: string | undefined,
): Pick<CanonicalResponse, 'usage' | 'inputUsage'> {
  const usageMetadata = (body as { usageMetadata?: unknown }).usageMetadata;
  const reported = readGeminiUsage(usageMetadata);
  if (reported === undefined) return { usage: undefined };
  const searches = countGroundingSearches(new Set(groundingQueriesOf(groundingMetadata)), modelVersion);
  const producedOutput = uncarried !== '' || content.some((part) => part.type === 'tool-call' || (part.type === 'text' && part.text !== ''));
  if (!producedOutput || reportsGeminiCandidates(usageMetadata)) return { usage: withGroundingSearches(reported, searches) };
  const reasoning = reported.output.reasoning;
  return { usage: undefined, inputUsage: { input: reported.input, ...(reasoning > 0 ? { reasoning } : {}), ...(searches > 0 ? { webSearches: searches } : {}) } };
}
