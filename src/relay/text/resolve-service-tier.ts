import type { PriceRecord } from '../../catalog/catalog-records.js';
import type { TextStyleName } from '../text-style.js';

/**
 * What becomes of a request's OpenAI `service_tier`:
 * - `priority`: it asked for Priority processing (`priority`, or `fast`, which OpenAI serves and bills as
 *   Priority and answers `priority` for) and its price names the tier's multiplier: sent as asked, reserved
 *   at the tier, billed at it when the answer says it was served at it;
 * - `withheld`: it asked for Priority but its price names no multiplier, or for a tier the gateway cannot
 *   price at all (`ultrafast`, any name it does not know): the field is not sent upstream (OpenAI then
 *   serves its default tier), with a warning in the log;
 * - `standard`: `auto`, `default`, `flex` (billed by OpenAI at or below standard), `scale` (a prepaid
 *   commitment of the operator's), none, a value that is no string (the upstream refuses it), another
 *   style: sent as asked, billed at the standard price.
 */
export type ServiceTierPlan = 'standard' | 'priority' | 'withheld';

const standardTiers = new Set(['auto', 'default', 'flex', 'scale']);
const priorityTiers = new Set(['priority', 'fast']);

/**
 * Pure: the plan for a Chat or Responses request's `service_tier`. OpenAI bills Priority processing at
 * about 1.7–2× its standard rates (https://openai.com/api-priority-processing/), so a client that picks it
 * must pay it, or not get it: the operator never pays a tier it did not price. Only a same-style OpenAI
 * upstream receives the field; a converted request drops it as before.
 */
export function resolveServiceTier(style: TextStyleName, body: Record<string, unknown>, price: PriceRecord | undefined): ServiceTierPlan {
  const tier = body.service_tier;
  if ((style !== 'openai-chat' && style !== 'openai-responses') || typeof tier !== 'string' || standardTiers.has(tier)) return 'standard';
  return priorityTiers.has(tier) && price?.priority !== undefined ? 'priority' : 'withheld';
}

/** The log's warning for a withheld tier. */
export function withheldTierWarning(tier: unknown): string {
  return priorityTiers.has(tier as string)
    ? `service_tier ${JSON.stringify(tier)} is not sent upstream: the model's price names no priority multiplier`
    : `service_tier ${JSON.stringify(tier)} is not sent upstream: the gateway has no price for that tier`;
}

/** A copy of `body` without its `service_tier`. */
export function withoutServiceTier(body: Record<string, unknown>): Record<string, unknown> {
  const { service_tier: _withheld, ...rest } = body;
  return rest;
}
