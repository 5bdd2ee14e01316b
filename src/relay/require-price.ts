import { isPriced } from '../billing/compute-charge.js';
import type { PriceRecord } from '../catalog/catalog-records.js';
import type { CatalogSnapshot } from '../catalog/catalog.js';
import { GatewayError } from '../errors/gateway-error.js';

/**
 * The price a request for `model` is billed at: its own, or — when the operator allows unpriced models —
 * an empty one (free). Else 400 `price_not_configured`, for the relay and for the routes that answer
 * as the relay would (Gemini `:countTokens`).
 */
export function requirePrice(snapshot: CatalogSnapshot, model: string): PriceRecord {
  const stored = snapshot.prices.get(model);
  if (stored !== undefined && isPriced(stored)) return stored;
  if (!snapshot.settings.allowUnpricedModels) {
    throw new GatewayError('price_not_configured', `Model ${model} has no price configured; ask the operator to set one.`, { param: 'model' });
  }
  return stored ?? { model };
}
