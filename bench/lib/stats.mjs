/** Small statistics helpers shared by the harness and its client processes. */

/** Sorted copy of the samples as a Float64Array (numeric sort). */
export function sorted(samples) {
  const array = Float64Array.from(samples);
  array.sort();
  return array;
}

/** Nearest-rank percentile of an already sorted array; NaN when empty. */
export function percentile(sortedSamples, p) {
  const n = sortedSamples.length;
  if (n === 0) return Number.NaN;
  const rank = Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1));
  return sortedSamples[rank];
}

export function mean(samples) {
  if (samples.length === 0) return Number.NaN;
  let sum = 0;
  for (const value of samples) sum += value;
  return sum / samples.length;
}

/** Least-squares slope of `values` over their index (0, 1, 2, …): the change per step; NaN below two values. */
export function slopePerStep(values) {
  const n = values.length;
  if (n < 2) return Number.NaN;
  const meanIndex = (n - 1) / 2;
  const meanValue = mean(values);
  let covariance = 0;
  let variance = 0;
  for (let index = 0; index < n; index++) {
    covariance += (index - meanIndex) * (values[index] - meanValue);
    variance += (index - meanIndex) ** 2;
  }
  return covariance / variance;
}

/** p50/p90/p99/p999/max/mean/count of raw samples (any unit). */
export function summarize(samples) {
  const s = sorted(samples);
  return {
    count: s.length,
    mean: mean(s),
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    p999: percentile(s, 99.9),
    max: s.length === 0 ? Number.NaN : s[s.length - 1],
  };
}

/** Least-squares slope of y over x (units of y per unit of x). */
export function slope(xs, ys) {
  const n = xs.length;
  if (n < 2) return Number.NaN;
  const mx = mean(xs);
  const my = mean(ys);
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export function round(value, digits = 2) {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function median(samples) {
  return percentile(sorted(samples), 50);
}
