import { emptyUsage } from '../../billing/normalized-usage.js';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import type { ConversionContext, Converted } from '../../canonical/conversion.js';
import { formatGeminiModelParts } from './format-gemini-model-parts.js';
import { formatGeminiFinishReason } from './map-gemini-finish-reason.js';
import { formatGeminiUsage } from './read-gemini-usage.js';

/**
 * Canonical → the GenerateContentResponse a Gemini client reads from generateContent: one candidate,
 * `modelVersion` echoing the model the client asked for, `responseId` the upstream's id when it has one;
 * thought text only when the client asked for it (`context.omitReasoningText`).
 */
export function formatGeminiResponse(response: CanonicalResponse, context: ConversionContext): Converted<Record<string, unknown>> {
  const warnings: string[] = [];
  // Without includeThoughts Gemini sends no thought text, only the signatures (on the parts that follow).
  const parts = formatGeminiModelParts(response.content, warnings, { destination: 'client', omitThoughtText: context.omitReasoningText === true });
  const usage = formatGeminiUsage(response.usage ?? emptyUsage());
  warnings.push(...usage.warnings);
  return {
    value: {
      candidates: [
        {
          // Gemini sends a content with no parts when a turn produced nothing (e.g. MAX_TOKENS spent thinking).
          content: parts.length === 0 ? { role: 'model' } : { parts, role: 'model' },
          finishReason: formatGeminiFinishReason(response.finishReason),
          index: 0,
        },
      ],
      usageMetadata: usage.value,
      modelVersion: context.requestedModel,
      responseId: response.id === '' ? context.newId('') : response.id,
    },
    warnings,
  };
}
