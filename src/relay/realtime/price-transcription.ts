import { isPriced } from '../../billing/compute-charge.js';
import { addAudio, type NormalizedUsage } from '../../billing/normalized-usage.js';
import type { PriceRecord } from '../../catalog/catalog-records.js';
import type { TranscriptionUsage } from './read-transcription.js';

/** OpenAI's realtime models count input audio at one token per 100 ms. */
const audioTokensPerSecond = 10;

export interface PricedTranscription {
  /** The name the log row shows. */
  model: string;
  price: PriceRecord;
  usage: NormalizedUsage;
  /** Units of a per-call price (seconds for a per-second one). */
  calls: number;
  warning: string | undefined;
}

/**
 * Pure: what a realtime session's input-audio transcription is billed at (docs/behaviour.md "Realtime").
 * The transcription model's own price when it has one: `per_second` for a duration (whole seconds, rounded
 * up), `per_call` once, else its token prices (a duration counted as 10 audio tokens a second). Without a
 * usable price it is billed at the session model's price, never free — unless the operator lets unpriced
 * models through, when it is free like any unpriced model. Both cases are logged as a warning.
 */
export function priceTranscription(
  model: string | undefined,
  reported: TranscriptionUsage,
  prices: ReadonlyMap<string, PriceRecord>,
  allowUnpricedModels: boolean,
  session: { model: string; price: PriceRecord },
): PricedTranscription {
  const record = model === undefined ? undefined : prices.get(model);
  const name = model ?? session.model;
  if (record !== undefined) {
    if (reported.kind === 'duration' && record.perSecond !== undefined) {
      return { model: name, price: { model: record.model, perCall: record.perSecond }, usage: durationUsage(reported.seconds), calls: Math.ceil(reported.seconds), warning: undefined };
    }
    if (isPriced(record)) return { model: name, price: record, usage: usageOf(reported), calls: 1, warning: undefined };
  }
  const unknown = model === undefined ? 'the session names no transcription model' : `transcription model ${model} has no usable price`;
  if (allowUnpricedModels) return { model: name, price: { model: name }, usage: usageOf(reported), calls: 1, warning: `${unknown}: not billed` };
  return { model: name, price: session.price, usage: usageOf(reported), calls: 1, warning: `${unknown}: billed at ${session.model}'s price` };
}

function usageOf(reported: TranscriptionUsage): NormalizedUsage {
  return reported.kind === 'tokens' ? reported.usage : durationUsage(reported.seconds);
}

function durationUsage(seconds: number): NormalizedUsage {
  const tokens = Math.ceil(seconds * audioTokensPerSecond);
  return addAudio({ input: { total: tokens, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 } }, tokens, 0);
}
