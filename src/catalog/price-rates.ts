import type { PriceRecord } from './catalog-records.js';

/**
 * Pure: a price's rates under their snake_case names — the admin API's fields and the `prices` table's
 * columns alike — with null where the model is not charged that way.
 */
export function priceRates(price: PriceRecord) {
  return {
    input: price.input ?? null,
    output: price.output ?? null,
    cache_read: price.cacheRead ?? null,
    cache_write: price.cacheWrite ?? null,
    cache_write_1h: price.cacheWrite1h ?? null,
    audio_input: price.audioInput ?? null,
    audio_output: price.audioOutput ?? null,
    image_input: price.imageInput ?? null,
    image_output: price.imageOutput ?? null,
    web_search: price.webSearch ?? null,
    priority: price.priority ?? null,
    per_call: price.perCall ?? null,
    per_second: price.perSecond ?? null,
  };
}
