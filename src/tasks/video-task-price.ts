import type { PriceRecord } from '../catalog/catalog-records.js';

/** A video task's price as the relay bills one: a per-call price and how many calls the task is. */
export interface VideoTaskPrice {
  /** The price record the charge is computed from (`perCall` set), and whose name the log shows. */
  price: PriceRecord;
  calls: number;
}

/**
 * What a video task costs (docs/behaviour.md "Video"): the price named `<model>@<size>` when the operator
 * set one (sora-2-pro's 1792x1024 costs more per second than its 720p), else the model's. A `per_second`
 * price is charged per second of the clip asked for; a `per_call` price once per task. Undefined when
 * neither price is set (the relay then refuses the model, or serves it free when unpriced models are
 * allowed). Pure: the caller gives it the catalog's prices.
 */
export function videoTaskPrice(prices: ReadonlyMap<string, PriceRecord>, model: string, size: string | undefined, seconds: number): VideoTaskPrice | undefined {
  const sized = size === undefined ? undefined : prices.get(`${model}@${size}`);
  for (const record of [sized, prices.get(model)]) {
    if (record?.perSecond !== undefined) return { price: { model: record.model, perCall: record.perSecond }, calls: seconds };
    if (record?.perCall !== undefined) return { price: { model: record.model, perCall: record.perCall }, calls: 1 };
  }
  return undefined;
}
