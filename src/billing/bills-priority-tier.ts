import type { PriceRecord } from '../catalog/catalog-records.js';
import type { NormalizedUsage } from './normalized-usage.js';

/**
 * Whether a charge's token cost takes the price's `priority` multiplier: an answer OpenAI says it served at
 * its Priority tier, at a price that names one (admission leaves it on the price only for a request that
 * asked for the tier: resolve-service-tier.ts).
 */
export function billsPriorityTier(usage: NormalizedUsage, price: PriceRecord): boolean {
  return usage.serviceTier === 'priority' && price.priority !== undefined;
}
