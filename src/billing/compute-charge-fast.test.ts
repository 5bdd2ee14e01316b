import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/support/seeded-random.js';
import type { PriceRecord } from '../catalog/catalog-records.js';
import { computeCharge, computeChargeExact } from './compute-charge.js';
import { computeChargeFast } from './compute-charge-fast.js';
import type { NormalizedUsage } from './normalized-usage.js';

const random = seededRandom(20_261_126);
const integer = (below: number) => Math.floor(random() * below);
const pick = <T>(values: readonly T[]): T => values[integer(values.length)] as T;

/** A decimal as an operator writes it: up to `digits` significant digits, up to `maxScale` after the point. */
function decimal(digits: number, maxScale: number): number {
  return Number((integer(10 ** digits) / 10 ** integer(maxScale + 1)).toString());
}

const tokenCounts = () =>
  pick([0, 1, 2, integer(100), integer(10_000), integer(1_000_000), integer(200_000_000), integer(2 ** 40), Number.MAX_SAFE_INTEGER, integer(Number.MAX_SAFE_INTEGER)]);
const priceValues = () => pick([0, 1, 2.5, 0.15, 0.075, 3.75, 1.1, 4.4, 1e-7, 3.75e-7, 1e21, 123_456.789, decimal(3, 3), decimal(6, 6), decimal(9, 12), decimal(15, 15), decimal(17, 20)]);

interface Shares {
  audioIn?: number;
  audioOut?: number;
  imageIn?: number;
  imageOut?: number;
}

function usageOf(total: number, cacheRead: number, cacheWrite: number, output: number, cacheWrite1h?: number, shares: Shares = {}): NormalizedUsage {
  const { audioIn, audioOut, imageIn, imageOut } = shares;
  return {
    input: {
      total, cacheRead, cacheWrite,
      ...(cacheWrite1h === undefined ? {} : { cacheWrite1h }), ...(audioIn === undefined ? {} : { audio: audioIn }), ...(imageIn === undefined ? {} : { image: imageIn }),
    },
    output: { total: output, reasoning: 0, ...(audioOut === undefined ? {} : { audio: audioOut }), ...(imageOut === undefined ? {} : { image: imageOut }) },
  };
}

/** What the caller sees: the charge, or the error's message. */
function outcome(compute: () => number): number | string {
  try {
    return compute();
  } catch (error) {
    return (error as Error).message;
  }
}

describe('computeChargeFast', () => {
  it('gives the BigInt result to the bit, or declines, over random prices, ratios and counts', () => {
    let fast = 0;
    for (let round = 0; round < 30_000; round += 1) {
      const price: PriceRecord =
        random() < 0.1
          ? { model: 'm', perCall: priceValues() }
          : {
              model: 'm',
              input: priceValues(),
              ...(random() < 0.5 ? { output: priceValues() } : {}),
              ...(random() < 0.3 ? { cacheRead: priceValues() } : {}),
              ...(random() < 0.2 ? { cacheWrite: priceValues() } : {}),
              ...(random() < 0.2 ? { cacheWrite1h: priceValues() } : {}),
              ...(random() < 0.2 ? { audioInput: priceValues() } : {}),
              ...(random() < 0.2 ? { audioOutput: priceValues() } : {}),
              ...(random() < 0.2 ? { imageInput: priceValues() } : {}),
              ...(random() < 0.2 ? { imageOutput: priceValues() } : {}),
              ...(random() < 0.2 ? { webSearch: priceValues() } : {}),
            };
      const ratio = pick([1, 0, 0.5, 1.1, 2, 0.333, decimal(4, 3), decimal(16, 18)]);
      const perUnit = pick([500_000, 1, 1_000_000, 0.5, decimal(7, 2)]);
      const calls = pick([1, 0, 4, integer(100)]);
      const share = () => pick([undefined, undefined, 0, tokenCounts()]);
      const usage = usageOf(tokenCounts(), pick([0, 0, tokenCounts()]), pick([0, 0, tokenCounts()]), tokenCounts(), pick([undefined, 0, tokenCounts()]), {
        audioIn: share(), audioOut: share(), imageIn: share(), imageOut: share(),
      });
      const searches = pick([undefined, undefined, 0, 1, integer(30), tokenCounts()]);
      if (searches !== undefined) usage.webSearches = searches;
      const result = computeChargeFast(usage, price, ratio, perUnit, calls);
      const exact = outcome(() => computeChargeExact(usage, price, ratio, perUnit, calls));
      if (result !== undefined) fast += 1;
      const charged = outcome(() => computeCharge(usage, price, ratio, perUnit, calls));
      // Objects are compared only on a mismatch (to name the inputs); 30,000 deep comparisons would be slow.
      if ((result !== undefined && !Object.is(result, exact)) || !Object.is(charged, exact)) {
        expect({ price, ratio, perUnit, calls, usage, result, charged }).toEqual({ price, ratio, perUnit, calls, usage, result: exact, charged: exact });
      }
    }
    // The fast path must carry a good share of these (the rest is large on purpose), or the comparison proves little.
    expect(fast).toBeGreaterThan(6_000);
  });

  it('rounds exact halves up and just-below-halves down, as the BigInt path does', () => {
    // $1/M at 500,000 quota per unit: each token is 0.5 quota, so an odd count is an exact half.
    const price: PriceRecord = { model: 'm', input: 1 };
    for (let round = 0; round < 20_000; round += 1) {
      const tokens = integer(2 ** 32) * 2 + 1;
      const usage = usageOf(tokens, 0, 0, 0);
      const result = computeChargeFast(usage, price, 1, 500_000, 1);
      expect(result).toBe((tokens + 1) / 2);
      expect(result).toBe(computeChargeExact(usage, price, 1, 500_000, 1));
    }
    // n + 0.5 − 10^-7 and n + 0.5 + 10^-7, built from 10^-7-sized steps: 0.15 $/M × 1 quota per unit.
    for (const tokens of [3_333_333, 3_333_334, 10_000_000, 9_999_999, 16_666_666, 16_666_667, 1, 100]) {
      const usage = usageOf(tokens, 0, 0, 0);
      expect(computeChargeFast(usage, { model: 'm', input: 0.15 }, 1, 1, 1)).toBe(computeChargeExact(usage, { model: 'm', input: 0.15 }, 1, 1, 1));
    }
  });

  it('is taken for everyday prices and declines where doubles could not be exact', () => {
    expect(computeChargeFast(usageOf(1200, 0, 0, 350), { model: 'gpt-4o', input: 2.5, output: 10 }, 1, 500_000, 1)).toBe(3250);
    expect(computeChargeFast(usageOf(1_000_000, 0, 0, 0), { model: 'm', input: 0.15 }, 1.1, 500_000, 1)).toBe(82_500);
    // 2^53 − 1 tokens × 15 price units leaves the safe integers: the BigInt path decides.
    expect(computeChargeFast(usageOf(Number.MAX_SAFE_INTEGER, 0, 0, 0), { model: 'm', input: 0.15 }, 1, 500_000, 1)).toBeUndefined();
    // Seventeen significant digits do not fit a safe integer.
    expect(computeChargeFast(usageOf(1, 0, 0, 0), { model: 'm', input: 0.12345678901234568 }, 1, 500_000, 1)).toBeUndefined();
    // Whatever the BigInt path refuses, the fast path leaves to it (so the error is the same).
    expect(computeChargeFast(usageOf(-1, 0, 0, 0), { model: 'm', input: 1 }, 1, 500_000, 1)).toBeUndefined();
    expect(computeChargeFast(usageOf(1, 0, 0, 0), { model: 'm', input: 1 }, Number.NaN, 500_000, 1)).toBeUndefined();
    expect(computeChargeFast(usageOf(1, 0, 0, 0), { model: 'video', perSecond: 0.1 }, 1, 500_000, 1)).toBeUndefined();
    expect(computeChargeFast(usageOf(0, 0, 0, 0), { model: 'm', perCall: 1 }, 1, 500_000, 1.5)).toBeUndefined();
  });

  it('returns 0, never −0, for a zero cost', () => {
    expect(Object.is(computeChargeFast(usageOf(-0, 0, 0, -0), { model: 'm', input: 1 }, 1, 500_000, 1), 0)).toBe(true);
    expect(Object.is(computeChargeFast(usageOf(0, 0, 0, 0), { model: 'm', perCall: 1 }, 1, 500_000, -0), 0)).toBe(true);
  });
});
