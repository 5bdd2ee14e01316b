import { describe, expect, it } from 'vitest';
// The harness is plain JavaScript (no build step); its statistics helpers are pure functions.
// @ts-expect-error -- an .mjs module without type declarations
import { slopePerStep } from '../../bench/lib/stats.mjs';

const slope = slopePerStep as (values: number[]) => number;

describe('slopePerStep (the per-chunk drift of scenario 4)', () => {
  it('is the step of a straight line, whatever its level', () => {
    expect(slope([500, 503, 506, 509, 512])).toBeCloseTo(3, 10);
    expect(slope([900, 900, 900, 900])).toBe(0);
    // Noise around a trend: the least-squares line, not the endpoints ((520 - 500) / 4 would say 5).
    expect(slope([500, 507, 505, 515, 520])).toBeCloseTo(4.8, 10);
  });

  it('is undefined (NaN) below two chunks', () => {
    expect(slope([42])).toBeNaN();
    expect(slope([])).toBeNaN();
  });
});
