import type { PriceRecord } from '../catalog/catalog-records.js';
import { computeCharge } from './compute-charge.js';
import type { NormalizedUsage } from './normalized-usage.js';

export interface ReservationEstimateInput {
  /** The prompt's tokens as admission knows them: an upper estimate (relay/estimate-text-tokens.ts), not an exact count. */
  promptTokens: number;
  /** The client's output limit; undefined when it set none. */
  maxOutputTokens: number | undefined;
  defaultMaxOutputTokens: number;
  price: PriceRecord;
  groupRatio: number;
  quotaPerUnit: number;
  /** For per-call models: how many calls (e.g. images) the request asks for. Default 1. */
  calls?: number;
  /** Web searches the request lets its upstream run (priced at `webSearch`). Default 0. */
  webSearches?: number;
}

/**
 * The most a request can cost, reserved before the upstream call: the prompt at the input price plus the
 * output limit at the output price (or the per-call price × calls). It goes through {@link computeCharge}
 * so its rounding agrees with settlement.
 *
 * The prompt is priced at the dearest input-side rate: a cache write can cost more than plain input
 * (Anthropic bills 5-minute writes at 1.25× and 1-hour writes at 2× the input price), and an estimate
 * that assumed plain input would then fall short of the settled charge. Likewise audio and images: the
 * prompt is priced as audio (or images) when that is the dearest rate, and the output limit at the dearest of
 * the text, audio and image output prices (a prompt of text can still be answered in audio or an image).
 * A price that carries a `priority` multiplier (admission leaves it only on a request that asked for
 * OpenAI's Priority tier) is reserved at that tier: the answer may be served, and billed, at it.
 */
export function estimateReservation(input: ReservationEstimateInput): number {
  const { price, promptTokens } = input;
  const plainRate = price.input ?? 0;
  const readRate = price.cacheRead ?? plainRate;
  const writeRate = price.cacheWrite ?? plainRate;
  const write1hRate = price.cacheWrite1h ?? writeRate;
  const audioRate = price.audioInput ?? plainRate;
  const imageRate = price.imageInput ?? plainRate;
  const dearest = Math.max(plainRate, readRate, writeRate, write1hRate, audioRate, imageRate);
  const asAudio = audioRate === dearest && audioRate > plainRate;
  const asImage = !asAudio && imageRate === dearest && imageRate > plainRate;
  const asAudioOrImage = asAudio || asImage;
  const as1hWrite = !asAudioOrImage && write1hRate === dearest && write1hRate > plainRate;
  const asWrite = as1hWrite || (!asAudioOrImage && writeRate === dearest && writeRate > plainRate);
  const asRead = !asAudioOrImage && !asWrite && readRate === dearest && readRate > plainRate;
  const outputTokens = input.maxOutputTokens ?? input.defaultMaxOutputTokens;
  const textOutputRate = price.output ?? 0;
  const audioOutputRate = price.audioOutput ?? textOutputRate;
  const imageOutputRate = price.imageOutput ?? textOutputRate;
  const audioOutput = audioOutputRate > textOutputRate && audioOutputRate >= imageOutputRate;
  const imageOutput = !audioOutput && imageOutputRate > textOutputRate;
  const usage: NormalizedUsage = {
    input: {
      total: promptTokens,
      cacheRead: asRead ? promptTokens : 0,
      cacheWrite: asWrite ? promptTokens : 0,
      cacheWrite1h: as1hWrite ? promptTokens : 0,
      audio: asAudio ? promptTokens : 0,
      image: asImage ? promptTokens : 0,
    },
    output: { total: outputTokens, reasoning: 0, audio: audioOutput ? outputTokens : 0, image: imageOutput ? outputTokens : 0 },
    ...(input.webSearches !== undefined && input.webSearches > 0 ? { webSearches: input.webSearches } : {}),
    ...(price.priority !== undefined ? { serviceTier: 'priority' } : {}),
  };
  return computeCharge(usage, price, input.groupRatio, input.quotaPerUnit, input.calls);
}
