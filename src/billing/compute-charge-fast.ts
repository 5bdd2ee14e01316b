import type { PriceRecord } from '../catalog/catalog-records.js';
import { billsPriorityTier } from './bills-priority-tier.js';
import type { NormalizedUsage } from './normalized-usage.js';

/**
 * {@link computeCharge} in doubles, for the hot path: the same exact decimal arithmetic and half-up
 * rounding, done on integers that stay exact as doubles (every intermediate value at most 2^53 − 1), so
 * the result is the BigInt path's to the bit. Returns undefined — and the caller takes the BigInt path,
 * which also raises the errors — whenever that cannot be guaranteed: an input that is not billable, a price
 * with more than 15 significant digits, an intermediate product or sum past 2^53 − 1, a scale past 10^22.
 */
export function computeChargeFast(usage: NormalizedUsage, price: PriceRecord, groupRatio: number, quotaPerUnit: number, calls: number): number | undefined {
  const ratio = decimalOf(groupRatio);
  const perUnit = decimalOf(quotaPerUnit);
  if (ratio === undefined || perUnit === undefined) return undefined;
  if (price.perCall !== undefined) {
    const perCall = decimalOf(price.perCall);
    if (perCall === undefined || !isCount(calls)) return undefined;
    const units = multiply(multiply(multiply(perCall.units, ratio.units), perUnit.units), calls);
    return units === undefined ? undefined : roundHalfUp(units, perCall.scale + ratio.scale + perUnit.scale);
  }
  // The Priority multiplier (rare) takes the BigInt path.
  if (price.input === undefined || billsPriorityTier(usage, price)) return undefined;

  const inputPrice = decimalOf(price.input);
  const cacheReadPrice = price.cacheRead === undefined ? inputPrice : decimalOf(price.cacheRead);
  const cacheWritePrice = price.cacheWrite === undefined ? inputPrice : decimalOf(price.cacheWrite);
  const cacheWrite1hPrice = price.cacheWrite1h === undefined ? cacheWritePrice : decimalOf(price.cacheWrite1h);
  const outputPrice = decimalOf(price.output ?? 0);
  const audioInputPrice = price.audioInput === undefined ? inputPrice : decimalOf(price.audioInput);
  const audioOutputPrice = price.audioOutput === undefined ? outputPrice : decimalOf(price.audioOutput);
  const imageInputPrice = price.imageInput === undefined ? inputPrice : decimalOf(price.imageInput);
  const imageOutputPrice = price.imageOutput === undefined ? outputPrice : decimalOf(price.imageOutput);
  const searchPrice = price.webSearch === undefined ? { units: 0, scale: 0 } : decimalOf(price.webSearch);
  if (
    inputPrice === undefined || cacheReadPrice === undefined || cacheWritePrice === undefined || cacheWrite1hPrice === undefined || outputPrice === undefined ||
    audioInputPrice === undefined || audioOutputPrice === undefined || imageInputPrice === undefined || imageOutputPrice === undefined || searchPrice === undefined
  ) {
    return undefined;
  }
  const { total: inputTotal, cacheRead, cacheWrite } = usage.input;
  const reported1h = usage.input.cacheWrite1h ?? 0;
  const reportedAudioIn = usage.input.audio ?? 0;
  const outputTotal = usage.output.total;
  const reportedAudioOut = usage.output.audio ?? 0;
  const reportedImageIn = usage.input.image ?? 0;
  const reportedImageOut = usage.output.image ?? 0;
  const webSearches = usage.webSearches ?? 0;
  if (!isCount(inputTotal) || !isCount(cacheRead) || !isCount(cacheWrite) || !isCount(reported1h) || !isCount(reportedAudioIn) || !isCount(outputTotal) || !isCount(reportedAudioOut) || !isCount(reportedImageIn) || !isCount(reportedImageOut) || !isCount(webSearches)) {
    return undefined;
  }
  const plainInput = Math.max(0, inputTotal - cacheRead - cacheWrite);
  const cacheWrite1h = Math.min(reported1h, cacheWrite);
  const audioIn = Math.min(reportedAudioIn, plainInput);
  const audioOut = Math.min(reportedAudioOut, outputTotal);
  const imageIn = Math.min(reportedImageIn, plainInput - audioIn);
  const imageOut = Math.min(reportedImageOut, outputTotal - audioOut);

  // Σ tokens × price, each term brought to the largest scale of the ten prices.
  const scale = Math.max(
    inputPrice.scale, cacheReadPrice.scale, cacheWritePrice.scale, cacheWrite1hPrice.scale, outputPrice.scale,
    audioInputPrice.scale, audioOutputPrice.scale, imageInputPrice.scale, imageOutputPrice.scale, searchPrice.scale,
  );
  let tokenCost: number | undefined = 0;
  tokenCost = add(tokenCost, term(plainInput - audioIn - imageIn, inputPrice, scale));
  tokenCost = add(tokenCost, term(audioIn, audioInputPrice, scale));
  tokenCost = add(tokenCost, term(imageIn, imageInputPrice, scale));
  tokenCost = add(tokenCost, term(cacheRead, cacheReadPrice, scale));
  tokenCost = add(tokenCost, term(cacheWrite - cacheWrite1h, cacheWritePrice, scale));
  tokenCost = add(tokenCost, term(cacheWrite1h, cacheWrite1hPrice, scale));
  tokenCost = add(tokenCost, term(outputTotal - audioOut - imageOut, outputPrice, scale));
  tokenCost = add(tokenCost, term(audioOut, audioOutputPrice, scale));
  tokenCost = add(tokenCost, term(imageOut, imageOutputPrice, scale));
  // Searches are priced each, tokens per million: a search costs a million tokens' worth of its price.
  if (webSearches > 0) tokenCost = add(tokenCost, multiply(term(webSearches, searchPrice, scale), 1_000_000));
  const units = multiply(multiply(tokenCost, ratio.units), perUnit.units);
  // Prices are per million tokens: 10^-6.
  return units === undefined ? undefined : roundHalfUp(units, scale + 6 + ratio.scale + perUnit.scale);
}

/** `units × 10^-scale`, units a safe integer. */
interface SmallDecimal {
  units: number;
  scale: number;
}

/** 10^0 … 10^22: every one exact as a double. */
const powersOfTen = Array.from({ length: 23 }, (_, exponent) => 10 ** exponent);

function isCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

/** An exact product, or undefined once it could have left the safe integers. */
function multiply(left: number | undefined, right: number): number | undefined {
  if (left === undefined) return undefined;
  const product = left * right;
  return product <= Number.MAX_SAFE_INTEGER ? product : undefined;
}

function add(left: number | undefined, right: number | undefined): number | undefined {
  if (left === undefined || right === undefined) return undefined;
  const sum = left + right;
  return sum <= Number.MAX_SAFE_INTEGER ? sum : undefined;
}

function term(tokens: number, price: SmallDecimal, scale: number): number | undefined {
  return multiply(multiply(tokens, price.units), powersOfTen[scale - price.scale] ?? Number.POSITIVE_INFINITY);
}

/**
 * Half up of `units × 10^-scale` with the "no paid call is free" floor of 1. Exact: `units % 10^scale` is
 * exact for doubles, so is `units − remainder`, and its quotient by 10^scale is an integer it can hold.
 */
function roundHalfUp(units: number, scale: number): number | undefined {
  if (units === 0) return 0;
  const denominator = powersOfTen[scale];
  if (denominator === undefined) return undefined;
  const remainder = units % denominator;
  const quotient = (units - remainder) / denominator;
  const rounded = 2 * remainder >= denominator ? quotient + 1 : quotient;
  return rounded === 0 ? 1 : rounded;
}

// Prices and ratios are a handful of distinct numbers: each is read from its decimal text once.
const decimals = new Map<number, SmallDecimal | null>();
const maxDecimals = 4096;

/** The decimal a number is written as (its shortest round-trip form), when its digits fit a safe integer. */
function decimalOf(value: number): SmallDecimal | undefined {
  if (Number.isSafeInteger(value)) return value >= 0 ? { units: value === 0 ? 0 : value, scale: 0 } : undefined;
  let decimal = decimals.get(value);
  if (decimal === undefined) {
    decimal = parseDecimal(value);
    if (decimals.size >= maxDecimals) decimals.clear();
    decimals.set(value, decimal);
  }
  return decimal ?? undefined;
}

function parseDecimal(value: number): SmallDecimal | null {
  if (!Number.isFinite(value) || value < 0) return null;
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (match === null) return null;
  const [, whole = '', fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  // Fifteen digits always fit a safe integer (2^53 − 1 has sixteen).
  if (digits.length > 15) return null;
  const scale = fraction.length - Number(exponent);
  const units = Number(digits);
  if (scale >= 0) return { units, scale };
  const scaled = multiply(units, powersOfTen[-scale] ?? Number.POSITIVE_INFINITY);
  return scaled === undefined ? null : { units: scaled, scale: 0 };
}
