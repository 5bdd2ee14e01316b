import { z } from 'zod';
import type { PriceRecord } from '../../../catalog/catalog-records.js';
import { priceSchema, priceValue, tierMultiplier } from '../../../config/config-file-schema.js';

/** A price needs a price: the `priority` multiplier alone prices nothing. */
const atLeastOnePrice = (body: Record<string, unknown>) => Object.entries(body).some(([name, value]) => name !== 'model' && name !== 'priority' && value !== undefined && value !== null);

/** The config file's price fields plus the model they price. */
export const createPriceBodySchema = priceSchema
  .extend({ model: z.string().min(1).max(191) })
  .refine(atLeastOnePrice, { message: 'give at least one of input, output, cache_read, cache_write, cache_write_1h, audio_input, audio_output, image_input, image_output, web_search, per_call, per_second' });

const clearablePrice = priceValue.nullable().optional();

/** Partial: an absent field keeps its value, null clears it. */
export const updatePriceBodySchema = z
  .object({
    input: clearablePrice,
    output: clearablePrice,
    cache_read: clearablePrice,
    cache_write: clearablePrice,
    cache_write_1h: clearablePrice,
    audio_input: clearablePrice,
    audio_output: clearablePrice,
    image_input: clearablePrice,
    image_output: clearablePrice,
    web_search: clearablePrice,
    priority: tierMultiplier.nullable().optional(),
    per_call: clearablePrice,
    per_second: clearablePrice,
  })
  .strict();

type PriceBody = z.output<typeof updatePriceBodySchema>;

/** Applies a body onto a price: absent keeps, null clears, a number sets. */
export function mergePrice(current: PriceRecord, body: PriceBody): PriceRecord {
  const pick = (value: number | null | undefined, kept: number | undefined) => (value === undefined ? kept : (value ?? undefined));
  return {
    model: current.model,
    input: pick(body.input, current.input),
    output: pick(body.output, current.output),
    cacheRead: pick(body.cache_read, current.cacheRead),
    cacheWrite: pick(body.cache_write, current.cacheWrite),
    cacheWrite1h: pick(body.cache_write_1h, current.cacheWrite1h),
    audioInput: pick(body.audio_input, current.audioInput),
    audioOutput: pick(body.audio_output, current.audioOutput),
    imageInput: pick(body.image_input, current.imageInput),
    imageOutput: pick(body.image_output, current.imageOutput),
    webSearch: pick(body.web_search, current.webSearch),
    priority: pick(body.priority, current.priority),
    perCall: pick(body.per_call, current.perCall),
    perSecond: pick(body.per_second, current.perSecond),
  };
}
