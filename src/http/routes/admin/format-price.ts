import type { PriceRecord } from '../../../catalog/catalog-records.js';
import { priceRates } from '../../../catalog/price-rates.js';

/** A price with every field present: null where the model is not charged that way. */
export function formatPrice(price: PriceRecord) {
  return { model: price.model, ...priceRates(price) };
}
