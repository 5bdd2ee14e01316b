import type { PriceRecord } from '../catalog/catalog-records.js';
import { billsPriorityTier } from './bills-priority-tier.js';
import { computeChargeFast } from './compute-charge-fast.js';
import type { NormalizedUsage } from './normalized-usage.js';

/**
 * True when {@link computeCharge} can bill the model: it has a per-call price or an input token price.
 * A price of 0 is a price (a free model). Per-second prices are billed by the task engine, not here.
 */
export function isPriced(price: PriceRecord | undefined): boolean {
  return price !== undefined && (price.perCall !== undefined || price.input !== undefined);
}

/**
 * What a request costs, in integer quota units.
 *
 * - Per-call price (it overrides token prices): `perCall × quotaPerUnit × groupRatio × calls`.
 * - Token prices are site currency per 1M tokens. `usage.input.total` includes cache reads and writes, so
 *   the plain input is what remains after both (never below 0); `usage.output.total` includes reasoning,
 *   billed at the output price. Cache writes to Anthropic's 1-hour cache (`usage.input.cacheWrite1h`, a
 *   part of `cacheWrite`) take the `cacheWrite1h` price, the other writes the `cacheWrite` price. Missing
 *   cache prices fall back to the input price (the 1-hour write price to the write price first), a
 *   missing output price to 0. Audio tokens (`usage.input.audio`, a part of the plain input, and
 *   `usage.output.audio`, a part of the output) take the `audioInput` and `audioOutput` prices, falling
 *   back to the input and output prices; image tokens (`usage.input.image`, `usage.output.image`, each
 *   clamped to what audio leaves of its side) take the `imageInput` and `imageOutput` prices, with the same
 *   fallbacks. An answer served at OpenAI's Priority tier (`usage.serviceTier` `priority`) has its token
 *   cost multiplied by the `priority` multiplier when the price carries one. Web searches the upstream ran
 *   (`usage.webSearches`) are added at the `webSearch` price each (site currency per search; unset, they
 *   are not billed), at every tier.
 *
 * Rounding rule: the cost is computed exactly — every price and ratio is taken at the decimal value it is
 * written with (0.15 is 15/100, not the nearest double) and the arithmetic is done in integers — then
 * rounded half up to an integer (2.5 → 3, 2.4999 → 2). A non-zero exact cost below one unit becomes 1,
 * so no paid call is free; an exact cost of 0 (no usage, or a free model) stays 0.
 *
 * Token counts, prices and ratios must be finite and non-negative, counts integers: anything else is a
 * bug upstream of billing and is thrown rather than billed as a guess.
 *
 * The arithmetic runs in doubles whenever every intermediate integer fits one exactly (compute-charge-fast.ts,
 * the usual case), else in BigInt ({@link computeChargeExact}); both give the same result to the bit.
 */
export function computeCharge(usage: NormalizedUsage, price: PriceRecord, groupRatio: number, quotaPerUnit: number, calls = 1): number {
  return computeChargeFast(usage, price, groupRatio, quotaPerUnit, calls) ?? computeChargeExact(usage, price, groupRatio, quotaPerUnit, calls);
}

/** {@link computeCharge} in BigInt arithmetic throughout: the reference, and the path for large or odd inputs. */
export function computeChargeExact(usage: NormalizedUsage, price: PriceRecord, groupRatio: number, quotaPerUnit: number, calls = 1): number {
  const ratio = exactDecimal(groupRatio, 'groupRatio');
  const perUnit = exactDecimal(quotaPerUnit, 'quotaPerUnit');
  if (price.perCall !== undefined) {
    const perCall = exactDecimal(price.perCall, 'perCall');
    return roundCharge(product([perCall, ratio, perUnit, exactDecimal(count(calls, 'calls'), 'calls')]));
  }
  if (price.input === undefined) throw new RangeError(`model ${price.model} has neither a per-call nor an input token price`);

  const inputPrice = exactDecimal(price.input, 'input');
  const cacheRead = count(usage.input.cacheRead, 'input.cacheRead');
  const cacheWrite = count(usage.input.cacheWrite, 'input.cacheWrite');
  const cacheWrite1h = Math.min(count(usage.input.cacheWrite1h ?? 0, 'input.cacheWrite1h'), cacheWrite);
  const plainInput = Math.max(0, count(usage.input.total, 'input.total') - cacheRead - cacheWrite);
  const audioIn = Math.min(count(usage.input.audio ?? 0, 'input.audio'), plainInput);
  const outputTotal = count(usage.output.total, 'output.total');
  const audioOut = Math.min(count(usage.output.audio ?? 0, 'output.audio'), outputTotal);
  const imageIn = Math.min(count(usage.input.image ?? 0, 'input.image'), plainInput - audioIn);
  const imageOut = Math.min(count(usage.output.image ?? 0, 'output.image'), outputTotal - audioOut);
  const cacheWritePrice = price.cacheWrite === undefined ? inputPrice : exactDecimal(price.cacheWrite, 'cacheWrite');
  const outputPrice = exactDecimal(price.output ?? 0, 'output');
  const tokenCost = sum([
    times(plainInput - audioIn - imageIn, inputPrice),
    times(audioIn, price.audioInput === undefined ? inputPrice : exactDecimal(price.audioInput, 'audioInput')),
    times(imageIn, price.imageInput === undefined ? inputPrice : exactDecimal(price.imageInput, 'imageInput')),
    times(cacheRead, price.cacheRead === undefined ? inputPrice : exactDecimal(price.cacheRead, 'cacheRead')),
    times(cacheWrite - cacheWrite1h, cacheWritePrice),
    times(cacheWrite1h, price.cacheWrite1h === undefined ? cacheWritePrice : exactDecimal(price.cacheWrite1h, 'cacheWrite1h')),
    times(outputTotal - audioOut - imageOut, outputPrice),
    times(audioOut, price.audioOutput === undefined ? outputPrice : exactDecimal(price.audioOutput, 'audioOutput')),
    times(imageOut, price.imageOutput === undefined ? outputPrice : exactDecimal(price.imageOutput, 'imageOutput')),
  ]);
  const perMillionTokens: Decimal = { units: 1n, scale: 6 };
  // Web searches are priced each, not per million: their cost joins the tokens' at the same scale.
  const webSearches = count(usage.webSearches ?? 0, 'webSearches');
  const searchCost = price.webSearch === undefined || webSearches === 0 ? undefined : product([times(webSearches, exactDecimal(price.webSearch, 'webSearch')), { units: 1_000_000n, scale: 0 }]);
  const tieredCost = billsPriorityTier(usage, price) ? product([tokenCost, exactDecimal(price.priority ?? 1, 'priority')]) : tokenCost;
  return roundCharge(product([searchCost === undefined ? tieredCost : sum([tieredCost, searchCost]), perMillionTokens, ratio, perUnit]));

}

/** `units × 10^-scale`, exactly. */
interface Decimal {
  units: bigint;
  scale: number;
}

/** The decimal a number is written as (its shortest round-trip form), so 0.15 is exactly 15 × 10^-2. */
function exactDecimal(value: number, name: string): Decimal {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite non-negative number (got ${value})`);
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (match === null) throw new RangeError(`${name} is not a decimal number (got ${value})`);
  const [, whole = '', fraction = '', exponent = '0'] = match;
  const scale = fraction.length - Number(exponent);
  const units = BigInt(whole + fraction);
  return scale >= 0 ? { units, scale } : { units: units * 10n ** BigInt(-scale), scale: 0 };
}

function count(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer (got ${value})`);
  return value;
}

function times(tokens: number, price: Decimal): Decimal {
  return { units: BigInt(tokens) * price.units, scale: price.scale };
}

function sum(terms: Decimal[]): Decimal {
  const scale = Math.max(...terms.map((term) => term.scale));
  const units = terms.reduce((total, term) => total + term.units * 10n ** BigInt(scale - term.scale), 0n);
  return { units, scale };
}

function product(factors: Decimal[]): Decimal {
  return factors.reduce((total, factor) => ({ units: total.units * factor.units, scale: total.scale + factor.scale }), { units: 1n, scale: 0 });
}

function roundCharge(exact: Decimal): number {
  if (exact.units === 0n) return 0;
  const denominator = 10n ** BigInt(exact.scale);
  const halfUp = (2n * exact.units + denominator) / (2n * denominator);
  const charge = halfUp === 0n ? 1n : halfUp;
  if (charge > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`charge ${charge} exceeds the largest safe integer`);
  return Number(charge);
}
