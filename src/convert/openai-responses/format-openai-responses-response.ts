import { emptyUsage } from '../../billing/normalized-usage.js';
import type { CanonicalResponse } from '../../canonical/canonical-response.js';
import type { ConversionContext, Converted } from '../../canonical/conversion.js';
import { formatOpenaiResponsesEnvelope } from './format-openai-responses-envelope.js';
import { formatOpenaiResponsesOutput } from './format-openai-responses-output.js';
import { mapToOpenaiResponsesOutcome } from './map-openai-responses-finish-reason.js';
import { formatOpenaiResponsesUsage } from './read-openai-responses-usage.js';

/**
 * Canonical → the Response object a `/v1/responses` client receives: the upstream's id when it is already a
 * `resp_` id, a fresh one otherwise; the model the client asked for; the status from the finish reason
 * (`incomplete` with `max_output_tokens` for a length stop).
 */
export function formatOpenaiResponsesResponse(response: CanonicalResponse, context: ConversionContext): Converted<Record<string, unknown>> {
  const id = response.id.startsWith('resp_') ? response.id : context.newId('resp_');
  const outcome = mapToOpenaiResponsesOutcome(response.finishReason);
  const output = formatOpenaiResponsesOutput(response.content, context, outcome.value.status === 'incomplete');
  const failed = outcome.value.status === 'failed';
  return {
    value: formatOpenaiResponsesEnvelope({
      id,
      createdAt: response.created > 0 ? response.created : context.now,
      model: context.requestedModel,
      status: outcome.value.status,
      output: output.value,
      usage: formatOpenaiResponsesUsage(response.usage ?? emptyUsage()),
      incompleteDetails: outcome.value.incompleteDetails,
      error: failed ? { code: 'server_error', message: `the upstream failed (${response.finishReason.raw ?? 'no reason given'})` } : null,
      completedAt: outcome.value.status === 'completed' ? context.now : null,
      request: context.requestEcho,
    }),
    warnings: [...outcome.warnings, ...output.warnings],
  };
}
