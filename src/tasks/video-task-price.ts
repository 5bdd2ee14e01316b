import type { PriceRecord } from '../catalog/catalog-records.js';

/** A video task's price as the relay bills one: a per-call price and how many calls the task is. */
export interface VideoTaskPrice {
  /** The price record the charge is computed from (`perCall` set), and whose name the log shows. */
  price: PriceRecord;
  calls: number;
}

/**
 * What a video task costs (docs/behaviour.md "Video"): the first of `names` the operator priced — the
 * request's variants, most specific first (`<model>@<size>`, a combined name such as
 * `kling-2.6-1080p-audio`, `<model>@pro`) — else the model's own price. A `per_second` price is charged per
 * second of the clip asked for; a `per_call` price once per task. Undefined when none is set (the relay then
 * refuses the model, or serves it free when unpriced models are allowed). Pure.
 */
export function videoTaskPrice(prices: ReadonlyMap<string, PriceRecord>, model: string, names: readonly string[], seconds: number): VideoTaskPrice | undefined {
  for (const name of [...names, model]) {
    const record = prices.get(name);
    if (record?.perSecond !== undefined) return { price: { model: record.model, perCall: record.perSecond }, calls: seconds };
    if (record?.perCall !== undefined) return { price: { model: record.model, perCall: record.perCall }, calls: 1 };
  }
  return undefined;
}
