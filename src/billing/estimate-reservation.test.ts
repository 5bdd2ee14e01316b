import { describe, expect, it } from 'vitest';
import type { PriceRecord } from '../catalog/catalog-records.js';
import { computeCharge } from './compute-charge.js';
import { estimateReservation } from './estimate-reservation.js';

const base = { defaultMaxOutputTokens: 4096, groupRatio: 1, quotaPerUnit: 500_000 };

describe('estimateReservation', () => {
  it('reserves the prompt at the input price plus the requested output limit at the output price', () => {
    const price: PriceRecord = { model: 'gpt-4o', input: 2.5, output: 10 };
    // 1,000×2.5 + 500×10 = 7,500 $·tokens/M → 0.0075 $ → 3,750.
    expect(estimateReservation({ ...base, promptTokens: 1000, maxOutputTokens: 500, price })).toBe(3750);
  });

  it("reserves at the priority multiplier when the price carries one (a request sent with OpenAI's Priority tier)", () => {
    // 3,750 standard × 2.
    expect(estimateReservation({ ...base, promptTokens: 1000, maxOutputTokens: 500, price: { model: 'gpt-4o', input: 2.5, output: 10, priority: 2 } })).toBe(7500);
  });

  it('uses the default output limit when the client sets none', () => {
    const price: PriceRecord = { model: 'gpt-4o', input: 2.5, output: 10 };
    // 1,000×2.5 + 4,096×10 = 43,460 → 0.04346 $ → 21,730.
    expect(estimateReservation({ ...base, promptTokens: 1000, maxOutputTokens: undefined, price })).toBe(21_730);
  });

  it('applies the group ratio', () => {
    const price: PriceRecord = { model: 'gpt-4o', input: 2.5, output: 10 };
    expect(estimateReservation({ ...base, groupRatio: 0.5, promptTokens: 1000, maxOutputTokens: 500, price })).toBe(1875);
  });

  it('reserves the per-call price times the number of calls for a per-call model', () => {
    const price: PriceRecord = { model: 'dall-e-3', perCall: 0.04 };
    expect(estimateReservation({ ...base, promptTokens: 50, maxOutputTokens: undefined, price })).toBe(20_000);
    expect(estimateReservation({ ...base, promptTokens: 50, maxOutputTokens: undefined, price, calls: 3 })).toBe(60_000);
  });

  it('prices the prompt as audio and the output limit as audio output when those are the dearest, so an audio answer stays covered', () => {
    const price: PriceRecord = { model: 'realtime', input: 5, output: 20, cacheRead: 2.5, audioInput: 40, audioOutput: 80 };
    // 1,000×40 + 500×80 = 80,000 → 40,000.
    const reserved = estimateReservation({ ...base, promptTokens: 1000, maxOutputTokens: 500, price });
    expect(reserved).toBe(40_000);
    const worst = computeCharge({ input: { total: 1000, cacheRead: 0, cacheWrite: 0, audio: 1000 }, output: { total: 500, reasoning: 0, audio: 500 } }, price, 1, 500_000);
    expect(worst).toBe(reserved);
  });

  it('prices the output limit as image output when that is the dearest output rate, so an image answer stays covered', () => {
    // gemini-2.5-flash-image style: $0.30 in, $2.50 out, $30 per million image tokens out.
    const price: PriceRecord = { model: 'flash-image', input: 0.3, output: 2.5, imageOutput: 30 };
    // 1,000×0.3 + 1,290×30 = 39,000 → 19,500.
    const reserved = estimateReservation({ ...base, promptTokens: 1000, maxOutputTokens: 1290, price });
    expect(reserved).toBe(19_500);
    expect(computeCharge({ input: { total: 1000, cacheRead: 0, cacheWrite: 0 }, output: { total: 1290, reasoning: 0, image: 1290 } }, price, 1, 500_000)).toBe(reserved);
  });

  it('prices the prompt as images when image input is the dearest input rate, and takes the dearer of audio and image output', () => {
    const price: PriceRecord = { model: 'mixed', input: 5, output: 10, audioInput: 8, imageInput: 12, audioOutput: 40, imageOutput: 30 };
    // 1,000×12 + 500×40 = 32,000 → 16,000.
    expect(estimateReservation({ ...base, promptTokens: 1000, maxOutputTokens: 500, price })).toBe(16_000);
    // The other way round: audio input dearest, image output dearest: 1,000×20 + 500×50 = 45,000 → 22,500.
    expect(estimateReservation({ ...base, promptTokens: 1000, maxOutputTokens: 500, price: { ...price, audioInput: 20, imageOutput: 50 } })).toBe(22_500);
  });

  it('keeps the text rates when the audio prices are cheaper', () => {
    const price: PriceRecord = { model: 'odd', input: 5, output: 20, audioInput: 1, audioOutput: 2 };
    // 1,000×5 + 500×20 = 15,000 → 7,500.
    expect(estimateReservation({ ...base, promptTokens: 1000, maxOutputTokens: 500, price })).toBe(7500);
  });

  it('prices the prompt as cache writes when writes cost more than plain input, so the estimate stays an upper bound', () => {
    const price: PriceRecord = { model: 'claude', input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    // 10,000×3.75 + 1,000×15 = 52,500 → 26,250.
    const reserved = estimateReservation({ ...base, promptTokens: 10_000, maxOutputTokens: 1000, price });
    expect(reserved).toBe(26_250);
    // The most the same request can settle at (every prompt token written to the cache) does not exceed it.
    const worst = computeCharge({ input: { total: 10_000, cacheRead: 0, cacheWrite: 10_000 }, output: { total: 1000, reasoning: 0 } }, price, 1, 500_000);
    expect(worst).toBeLessThanOrEqual(reserved);
  });

  it('prices the prompt as 1-hour cache writes when those are the dearest, so a prompt written to the 1-hour cache stays covered', () => {
    const price: PriceRecord = { model: 'claude', input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, cacheWrite1h: 6 };
    // 10,000×6 + 1,000×15 = 75,000 → 37,500.
    const reserved = estimateReservation({ ...base, promptTokens: 10_000, maxOutputTokens: 1000, price });
    expect(reserved).toBe(37_500);
    const worst = computeCharge({ input: { total: 10_000, cacheRead: 0, cacheWrite: 10_000, cacheWrite1h: 10_000 }, output: { total: 1000, reasoning: 0 } }, price, 1, 500_000);
    expect(worst).toBe(reserved);
  });

  it('keeps the 5-minute write rate when a cheaper 1-hour price is set', () => {
    const price: PriceRecord = { model: 'odd', input: 1, output: 0, cacheWrite: 4, cacheWrite1h: 2 };
    // 1,000×4 = 4,000 → 2,000.
    expect(estimateReservation({ ...base, promptTokens: 1000, maxOutputTokens: 0, price })).toBe(2000);
  });

  it('prices the prompt as cache reads in the odd case that reads are the dearest input-side price', () => {
    const price: PriceRecord = { model: 'odd', input: 1, output: 0, cacheRead: 2 };
    // 1,000×2 = 2,000 → 1,000.
    expect(estimateReservation({ ...base, promptTokens: 1000, maxOutputTokens: 0, price })).toBe(1000);
  });

  it('rounds exactly as settlement does, including the minimum of 1', () => {
    const price: PriceRecord = { model: 'm', input: 0.15, output: 0.6 };
    expect(estimateReservation({ ...base, promptTokens: 1, maxOutputTokens: 0, price })).toBe(1);
    // 1,001 × $1/M × 500,000 = 500.5 → 501.
    expect(estimateReservation({ ...base, promptTokens: 1001, maxOutputTokens: 0, price: { model: 'm', input: 1, output: 1 } })).toBe(501);
  });
});
