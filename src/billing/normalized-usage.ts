/**
 * Usage as every style reports it, normalized once (CONVENTIONS.md §6). `input.total` includes cache
 * reads and writes; `output.total` includes reasoning. The vendor's own object is kept in `raw`.
 * `input.cacheWrite1h` is the part of `cacheWrite` written to Anthropic's 1-hour cache (billed at its own
 * price); absent where the vendor has no such split.
 */
export interface NormalizedUsage {
  input: { total: number; cacheRead: number; cacheWrite: number; cacheWrite1h?: number };
  output: { total: number; reasoning: number };
  raw?: unknown;
}

/** Where the numbers came from, recorded in the log. */
export type UsageSource = 'upstream' | 'local' | 'none';

export function emptyUsage(): NormalizedUsage {
  return { input: { total: 0, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 } };
}
