import { describe, expect, it } from 'vitest';
import type { PriceRecord } from '../catalog/catalog-records.js';
import { computeCharge, isPriced } from './compute-charge.js';
import type { NormalizedUsage } from './normalized-usage.js';

const quotaPerUnit = 500_000;

function usage(input: Partial<NormalizedUsage['input']>, output: Partial<NormalizedUsage['output']> = {}): NormalizedUsage {
  return {
    input: { total: 0, cacheRead: 0, cacheWrite: 0, ...input },
    output: { total: 0, reasoning: 0, ...output },
  };
}

describe('computeCharge', () => {
  it('bills input and output tokens at their prices per million', () => {
    // gpt-4o style: $2.50/M in, $10/M out. 1,200 in → 0.003 $; 350 out → 0.0035 $; total 0.0065 $ × 500,000 = 3,250.
    const price: PriceRecord = { model: 'gpt-4o', input: 2.5, output: 10 };
    expect(computeCharge(usage({ total: 1200 }, { total: 350 }), price, 1, quotaPerUnit)).toBe(3250);
  });

  it('bills cache reads and writes at their own prices and only the rest of the input at the input price', () => {
    // Claude style: $3 in, $15 out, $0.30 cache read, $3.75 cache write.
    // input.total 10,000 = 2,000 plain + 6,000 read + 2,000 write.
    // 2,000×3 + 6,000×0.3 + 2,000×3.75 + 500×15 = 6,000 + 1,800 + 7,500 + 7,500 = 22,800 $·tokens/M
    // → 0.0228 $ × 500,000 = 11,400.
    const price: PriceRecord = { model: 'claude', input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    expect(computeCharge(usage({ total: 10_000, cacheRead: 6000, cacheWrite: 2000 }, { total: 500 }), price, 1, quotaPerUnit)).toBe(11_400);
  });

  it("bills Anthropic's 1-hour cache writes at their own price and the other writes at the write price", () => {
    // $3 in, $15 out, $0.30 read, $3.75 5-minute write, $6 1-hour write.
    // 10,000 in = 2,000 plain + 6,000 read + 2,000 written, 500 of them to the 1-hour cache.
    // 2,000×3 + 6,000×0.3 + 1,500×3.75 + 500×6 + 500×15 = 6,000 + 1,800 + 5,625 + 3,000 + 7,500 = 23,925 → 11,962.5 → 11,963.
    const price: PriceRecord = { model: 'claude', input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, cacheWrite1h: 6 };
    expect(computeCharge(usage({ total: 10_000, cacheRead: 6000, cacheWrite: 2000, cacheWrite1h: 500 }, { total: 500 }), price, 1, quotaPerUnit)).toBe(11_963);
  });

  it('bills 1-hour writes at the write price when the model has no 1-hour price, and at the input price when it has neither', () => {
    const withWrite: PriceRecord = { model: 'claude', input: 3, cacheWrite: 3.75 };
    // 1,000×3.75 = 3,750 → 1,875, as if all were 5-minute writes.
    expect(computeCharge(usage({ total: 1000, cacheWrite: 1000, cacheWrite1h: 600 }), withWrite, 1, quotaPerUnit)).toBe(1875);
    expect(computeCharge(usage({ total: 1000, cacheWrite: 1000, cacheWrite1h: 600 }), { model: 'plain', input: 3 }, 1, quotaPerUnit)).toBe(1500);
  });

  it('never bills more 1-hour writes than there were writes', () => {
    const price: PriceRecord = { model: 'claude', input: 3, cacheWrite: 3.75, cacheWrite1h: 6 };
    // 1h reported 5,000 of 1,000 writes: all 1,000 at $6 = 6,000 → 3,000.
    expect(computeCharge(usage({ total: 1000, cacheWrite: 1000, cacheWrite1h: 5000 }), price, 1, quotaPerUnit)).toBe(3000);
  });

  it('bills audio input and output tokens at the audio prices and the rest at the text prices', () => {
    // gpt-4o-realtime style: $5 in, $20 out, $2.50 cached, $40 audio in, $80 audio out.
    // 3,000 in = 500 cached + 2,500 plain, 2,000 of them audio; 800 out, 600 of them audio.
    // 500×5 + 2,000×40 + 500×2.5 + 200×20 + 600×80 = 2,500 + 80,000 + 1,250 + 4,000 + 48,000 = 135,750 → 67,875.
    const price: PriceRecord = { model: 'realtime', input: 5, output: 20, cacheRead: 2.5, audioInput: 40, audioOutput: 80 };
    expect(computeCharge(usage({ total: 3000, cacheRead: 500, audio: 2000 }, { total: 800, audio: 600 }), price, 1, quotaPerUnit)).toBe(67_875);
  });

  it("multiplies the token cost by the priority multiplier for an answer served at OpenAI's Priority tier, searches excepted", () => {
    // $2.50 in, $10 out: 1,000 + 1,000 tokens = 12,500 $ per M × 1.7 = 21,250 → 0.02125 $ × 500,000 = 10,625.
    const price: PriceRecord = { model: 'gpt-4o', input: 2.5, output: 10, priority: 1.7, webSearch: 0.01 };
    expect(computeCharge({ ...usage({ total: 1000 }, { total: 1000 }), serviceTier: 'priority' }, price, 1, quotaPerUnit)).toBe(10_625);
    // Standard, flex or unreported tiers, and a price without a multiplier: the standard charge.
    expect(computeCharge({ ...usage({ total: 1000 }, { total: 1000 }), serviceTier: 'default' }, price, 1, quotaPerUnit)).toBe(6250);
    expect(computeCharge(usage({ total: 1000 }, { total: 1000 }), price, 1, quotaPerUnit)).toBe(6250);
    expect(computeCharge({ ...usage({ total: 1000 }, { total: 1000 }), serviceTier: 'priority' }, { model: 'gpt-4o', input: 2.5, output: 10 }, 1, quotaPerUnit)).toBe(6250);
    // One search ($0.01 → 5,000) is added at its own price, not multiplied.
    expect(computeCharge({ ...usage({ total: 1000 }, { total: 1000 }), serviceTier: 'priority', webSearches: 1 }, price, 1, quotaPerUnit)).toBe(15_625);
  });

  it('bills each web search at the web_search price on top of the tokens, and none when the model has no such price', () => {
    // $3 in, $15 out, $0.01 a search: 1,000×3 + 200×15 = 6,000 µ$ per M → 0.006 $; 3 searches 0.03 $ → 0.036 $ × 500,000 = 18,000.
    const price: PriceRecord = { model: 'claude', input: 3, output: 15, webSearch: 0.01 };
    expect(computeCharge({ ...usage({ total: 1000 }, { total: 200 }), webSearches: 3 }, price, 1, quotaPerUnit)).toBe(18_000);
    expect(computeCharge({ ...usage({ total: 1000 }, { total: 200 }), webSearches: 3 }, { model: 'claude', input: 3, output: 15 }, 1, quotaPerUnit)).toBe(3000);
    // A per-call price covers the whole call, searches included.
    expect(computeCharge({ ...usage({ total: 1000 }), webSearches: 3 }, { model: 'flat', perCall: 0.02, webSearch: 0.01 }, 1, quotaPerUnit)).toBe(10_000);
  });

  it('bills audio at the text prices when the model has no audio prices', () => {
    const price: PriceRecord = { model: 'gpt-4o', input: 2.5, output: 10 };
    expect(computeCharge(usage({ total: 1200, audio: 1000 }, { total: 350, audio: 300 }), price, 1, quotaPerUnit)).toBe(3250);
  });

  it('bills image input and output tokens at the image prices, beside audio, and the rest at the text prices', () => {
    // gemini-3-pro-image style: $2 in, $12 out, $120 per million image out; an image input at $4 (say).
    // 5,000 in = 1,000 cached + 4,000 plain (1,500 audio, 2,000 image, 500 text); 1,500 out (1,120 image, 100 audio, 280 text).
    const price: PriceRecord = { model: 'image', input: 2, output: 12, cacheRead: 0.2, audioInput: 8, audioOutput: 30, imageInput: 4, imageOutput: 120 };
    // 500×2 + 1,500×8 + 2,000×4 + 1,000×0.2 + 280×12 + 100×30 + 1,120×120 = 1,000 + 12,000 + 8,000 + 200 + 3,360 + 3,000 + 134,400
    //   = 161,960 → $0.16196 → × 500,000 = 80,980.
    const charged = computeCharge(usage({ total: 5000, cacheRead: 1000, audio: 1500, image: 2000 }, { total: 1500, audio: 100, image: 1120 }), price, 1, quotaPerUnit);
    expect(charged).toBe(80_980);
    // Without image prices the same images cost text: 2,500×2 + 1,500×8 + 200 + 1,400×12 + 3,000 = 37,000 → 18,500.
    const { imageInput: _in, imageOutput: _out, ...textOnly } = price;
    expect(computeCharge(usage({ total: 5000, cacheRead: 1000, audio: 1500, image: 2000 }, { total: 1500, audio: 100, image: 1120 }), textOnly, 1, quotaPerUnit)).toBe(18_500);
  });

  it('never bills more images than what audio leaves of the plain input or the output', () => {
    const price: PriceRecord = { model: 'image', input: 1, output: 2, audioInput: 10, audioOutput: 20, imageInput: 100, imageOutput: 200 };
    // Plain input 1,000: 600 audio, images reported 5,000 → 400. Output 300: 100 audio, images reported 900 → 200.
    // 600×10 + 400×100 + 100×20 + 200×200 = 6,000 + 40,000 + 2,000 + 40,000 = 88,000 → 44,000.
    expect(computeCharge(usage({ total: 1000, audio: 600, image: 5000 }, { total: 300, audio: 100, image: 900 }), price, 1, quotaPerUnit)).toBe(44_000);
  });

  it('never bills more audio than the plain input or the output holds', () => {
    const price: PriceRecord = { model: 'realtime', input: 5, output: 20, cacheRead: 2.5, audioInput: 40, audioOutput: 80 };
    // Audio reported 9,000 of 1,000 plain input and 5,000 of 100 output: 1,000×40 + 1,000×2.5 + 100×80 = 50,500 → 25,250.
    expect(computeCharge(usage({ total: 2000, cacheRead: 1000, audio: 9000 }, { total: 100, audio: 5000 }), price, 1, quotaPerUnit)).toBe(25_250);
  });

  it('bills cache tokens at the input price when the model has no cache prices', () => {
    const price: PriceRecord = { model: 'plain', input: 2, output: 8 };
    // All 10,000 input tokens at $2: 0.02 $ → 10,000.
    expect(computeCharge(usage({ total: 10_000, cacheRead: 6000, cacheWrite: 2000 }), price, 1, quotaPerUnit)).toBe(10_000);
  });

  it('never bills negative plain input when a vendor reports cache tokens outside the input total', () => {
    const price: PriceRecord = { model: 'claude', input: 3, cacheRead: 0.3 };
    // total 100 but 1,000 cache reads: plain input is clamped to 0, reads still billed: 1,000×0.3 = 300 → 0.0003 $ → 150.
    expect(computeCharge(usage({ total: 100, cacheRead: 1000 }), price, 1, quotaPerUnit)).toBe(150);
  });

  it('bills reasoning tokens once, as part of the output total', () => {
    // o-series style: $1.10 in, $4.40 out; output.total 3,000 of which 2,500 reasoning.
    // 1,000×1.1 + 3,000×4.4 = 1,100 + 13,200 = 14,300 → 0.0143 $ → 7,150.
    const price: PriceRecord = { model: 'o4-mini', input: 1.1, output: 4.4 };
    expect(computeCharge(usage({ total: 1000 }, { total: 3000, reasoning: 2500 }), price, 1, quotaPerUnit)).toBe(7150);
  });

  it('applies the group ratio', () => {
    const price: PriceRecord = { model: 'gpt-4o', input: 2.5, output: 10 };
    expect(computeCharge(usage({ total: 1200 }, { total: 350 }), price, 0.5, quotaPerUnit)).toBe(1625);
  });

  it('bills output at 0 when the model has no output price', () => {
    const price: PriceRecord = { model: 'embedding', input: 0.02 };
    // 50,000 × 0.02 = 1,000 → 0.001 $ → 500.
    expect(computeCharge(usage({ total: 50_000 }, { total: 9999 }), price, 1, quotaPerUnit)).toBe(500);
  });

  it('bills a per-call model per call whatever the usage, overriding token prices', () => {
    const price: PriceRecord = { model: 'dall-e-3', perCall: 0.04, input: 100 };
    expect(computeCharge(usage({ total: 1000 }, { total: 1000 }), price, 1, quotaPerUnit)).toBe(20_000);
    expect(computeCharge(usage({}), price, 0.5, quotaPerUnit)).toBe(10_000);
  });

  it('bills a per-call model for each image', () => {
    const price: PriceRecord = { model: 'dall-e-3', perCall: 0.04 };
    expect(computeCharge(usage({}), price, 1, quotaPerUnit, 4)).toBe(80_000);
    expect(computeCharge(usage({}), price, 1.5, quotaPerUnit, 3)).toBe(90_000);
    expect(computeCharge(usage({}), price, 1, quotaPerUnit, 0)).toBe(0);
  });

  it('is exact where floating point is not: 0.15 $/M × 1,000,000 tokens = 75,000', () => {
    const price: PriceRecord = { model: 'gpt-4o-mini', input: 0.15, output: 0.6 };
    expect(computeCharge(usage({ total: 1_000_000 }), price, 1, quotaPerUnit)).toBe(75_000);
    // 0.1 + 0.2 in doubles is 0.30000000000000004; here 1M in at 0.1 and 1M out at 0.2 is exactly 0.3 $.
    expect(computeCharge(usage({ total: 1_000_000 }, { total: 1_000_000 }), { model: 'm', input: 0.1, output: 0.2 }, 1, quotaPerUnit)).toBe(150_000);
    // 0.15 × 1.1 ratio: 82,500, not 82,500.00000000001 or 82,499.99999999999.
    expect(computeCharge(usage({ total: 1_000_000 }), price, 1.1, quotaPerUnit)).toBe(82_500);
  });

  it('rounds an exact half up even where doubles land just below it', () => {
    // 1,001 tokens × $1/M × 500,000 = 500.5 exactly; 1001 * 1 / 1e6 * 500000 in doubles is 500.49999999999994.
    expect(computeCharge(usage({ total: 1001 }), { model: 'm', input: 1 }, 1, quotaPerUnit)).toBe(501);
    // 12,345 × $4.60/M × 500,000 = 28,393.5 exactly (doubles: 28,393.499999999996).
    expect(computeCharge(usage({ total: 12_345 }), { model: 'm', input: 4.6 }, 1, quotaPerUnit)).toBe(28_394);
  });

  it('rounds half up, not to even, and below half down', () => {
    const price: PriceRecord = { model: 'm', input: 1 }; // 0.5 quota per token
    expect(computeCharge(usage({ total: 3 }), price, 1, quotaPerUnit)).toBe(2); // 1.5
    expect(computeCharge(usage({ total: 5 }), price, 1, quotaPerUnit)).toBe(3); // 2.5 (banker's rounding would give 2)
    expect(computeCharge(usage({ total: 6 }), { model: 'm', input: 0.8 }, 1, quotaPerUnit)).toBe(2); // 2.4
    expect(computeCharge(usage({ total: 7 }), { model: 'm', input: 0.8 }, 1, quotaPerUnit)).toBe(3); // 2.8
  });

  it('charges 1 for a non-zero cost below one unit, so no paid call is free', () => {
    // 1 token at $0.15/M = 0.075 quota.
    expect(computeCharge(usage({ total: 1 }), { model: 'm', input: 0.15 }, 1, quotaPerUnit)).toBe(1);
    // Per call: $0.000001 × 500,000 × 0.5 = 0.25 quota.
    expect(computeCharge(usage({}), { model: 'm', perCall: 0.000001 }, 0.5, quotaPerUnit)).toBe(1);
  });

  it('charges 0 for zero usage, a free model or a zero group ratio', () => {
    expect(computeCharge(usage({}), { model: 'm', input: 2.5, output: 10 }, 1, quotaPerUnit)).toBe(0);
    expect(computeCharge(usage({ total: 1000 }, { total: 1000 }), { model: 'free', input: 0, output: 0 }, 1, quotaPerUnit)).toBe(0);
    expect(computeCharge(usage({ total: 1000 }), { model: 'm', input: 2.5 }, 0, quotaPerUnit)).toBe(0);
    expect(computeCharge(usage({}), { model: 'free-image', perCall: 0 }, 1, quotaPerUnit)).toBe(0);
  });

  it('takes prices JavaScript prints in exponent form at their exact value', () => {
    // String(3.75e-7) is "3.75e-7". 2,000,000,000,000 tokens × 3.75e-7 $/M = 0.75 $ → 375,000.
    expect(computeCharge(usage({ total: 2_000_000_000_000 }), { model: 'm', input: 3.75e-7 }, 1, quotaPerUnit)).toBe(375_000);
    // String(1e21) is "1e+21": 1 call × 1e21 $ × 500,000 quota is far beyond a safe integer, and says so.
    expect(() => computeCharge(usage({}), { model: 'm', perCall: 1e21 }, 1, quotaPerUnit)).toThrow(/largest safe integer/);
  });

  it('throws on counts, prices and ratios that cannot be billed', () => {
    const price: PriceRecord = { model: 'm', input: 1 };
    expect(() => computeCharge(usage({ total: -1 }), price, 1, quotaPerUnit)).toThrow(RangeError);
    expect(() => computeCharge(usage({ total: 1.5 }), price, 1, quotaPerUnit)).toThrow(RangeError);
    expect(() => computeCharge(usage({}, { total: Number.NaN }), price, 1, quotaPerUnit)).toThrow(RangeError);
    expect(() => computeCharge(usage({ total: 1 }), { model: 'm', input: -1 }, 1, quotaPerUnit)).toThrow(RangeError);
    expect(() => computeCharge(usage({ total: 1 }), price, Number.POSITIVE_INFINITY, quotaPerUnit)).toThrow(RangeError);
    expect(() => computeCharge(usage({}), { model: 'm', perCall: 1 }, 1, quotaPerUnit, 1.5)).toThrow(RangeError);
    expect(() => computeCharge(usage({ total: 1 }), { model: 'video', perSecond: 0.1 }, 1, quotaPerUnit)).toThrow(/neither a per-call nor an input/);
  });
});

describe('isPriced', () => {
  it('is true for a token price or a per-call price, including a free one', () => {
    expect(isPriced({ model: 'm', input: 2.5, output: 10 })).toBe(true);
    expect(isPriced({ model: 'm', perCall: 0.04 })).toBe(true);
    expect(isPriced({ model: 'm', input: 0 })).toBe(true);
  });

  it('is false for no price, an empty price or a price computeCharge cannot bill', () => {
    expect(isPriced(undefined)).toBe(false);
    expect(isPriced({ model: 'm' })).toBe(false);
    expect(isPriced({ model: 'm', output: 10 })).toBe(false);
    expect(isPriced({ model: 'video', perSecond: 0.1 })).toBe(false);
  });
});
