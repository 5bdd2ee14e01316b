import type { PriceRecord } from '../../catalog/catalog-records.js';
import type { TextStyleName } from '../text-style.js';

/**
 * What becomes of a request's OpenAI `service_tier`:
 * - `priority`: it asked for Priority processing and its price names the tier's multiplier: sent as asked,
 *   reserved at the tier, billed at it when the answer says it was served at it;
 * - `withheld`: it asked for Priority but its price names no multiplier: the field is not sent upstream
 *   (OpenAI then serves its default tier), with a warning in the log;
 * - `standard`: anything else (`auto`, `default`, `flex`, none, another style): sent as asked, billed at the
 *   standard price.
 */
export type ServiceTierPlan = 'standard' | 'priority' | 'withheld';

/**
 * Pure: the plan for a Chat or Responses request's `service_tier`. OpenAI bills Priority processing at
 * about 1.7–2× its standard rates (https://openai.com/api-priority-processing/), so a client that picks it
 * must pay it, or not get it: the operator never pays a tier it did not price. Only a same-style OpenAI
 * upstream receives the field; a converted request drops it as before.
 */
export function resolveServiceTier(style: TextStyleName, body: Record<string, unknown>, price: PriceRecord | undefined): ServiceTierPlan {
  if ((style !== 'openai-chat' && style !== 'openai-responses') || body.service_tier !== 'priority') return 'standard';
  return price?.priority === undefined ? 'withheld' : 'priority';
}

/** The log's warning for a withheld tier. */
export const withheldPriorityWarning = 'service_tier "priority" is not sent upstream: the model\'s price names no priority multiplier';

/** A copy of `body` without its `service_tier`. */
export function withoutServiceTier(body: Record<string, unknown>): Record<string, unknown> {
  const { service_tier: _withheld, ...rest } = body;
  return rest;
}
