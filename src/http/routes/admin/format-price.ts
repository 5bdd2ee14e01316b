import type { PriceRecord } from '../../../catalog/catalog-records.js';

/** A price with every field present: null where the model is not charged that way. */
export function formatPrice(price: PriceRecord) {
  return {
    model: price.model,
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
