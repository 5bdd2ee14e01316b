import { describe, expect, it } from 'vitest';
// @ts-expect-error -- an .mjs module without type declarations
import { sawtoothTroughs, summariseSoakRss } from '../../bench/lib/soak-rss.mjs';

interface Sample { tSec: number; rssMb: number }
interface Summary {
  growthMb: number;
  bottoms?: { of: 'teeth' | 'lowest'; earlyMb: number; lateMb: number; growthMb: number; early?: number; late?: number };
}
const troughsOf = sawtoothTroughs as (samples: Sample[]) => Sample[];
const summarise = summariseSoakRss as (samples: Sample[], soakSec: number) => Summary;

/**
 * One RSS sample a second: teeth that rise from `bottom` (plus `leakPerSec` × t) to their top over their
 * length, then fall back in one second, as a mark-compact does; `forcedAt` adds the harness's forced
 * collections (a deeper drop, refilled in ~10 s).
 */
function soak(teeth: Array<[seconds: number, topMb: number]>, { bottom = 155, leakPerSec = 0, forcedAt = [45, 65] } = {}): Sample[] {
  const samples: Sample[] = [];
  for (const [seconds, top] of teeth) {
    for (let step = 0; step < seconds; step++) {
      const t = samples.length;
      let rss = bottom + (top - bottom) * (step / seconds) + leakPerSec * t;
      for (const forced of forcedAt) if (t >= forced && t < forced + 12) rss = Math.min(rss, 115 + 4 * (t - forced));
      samples.push({ tSec: t, rssMb: Math.round(rss * 10) / 10 });
    }
  }
  return samples.slice(0, 121);
}

describe('the bottoms of a soak\'s RSS sawtooth', () => {
  it('are the lowest sample of each fall of at least 3 MB (or 2 %), not the small wobbles between', () => {
    const samples = [170, 171, 158, 156, 156.5, 157, 166, 169.5, 170, 154, 160].map((rssMb, tSec) => ({ tSec, rssMb }));
    expect(troughsOf(samples)).toEqual([{ tSec: 3, rssMb: 156 }, { tSec: 9, rssMb: 154 }]);
    expect(troughsOf([160, 158.5, 159, 157.2].map((rssMb, tSec) => ({ tSec, rssMb })))).toEqual([]);
  });

  it('stay level while the teeth lengthen, where the quarters\' medians read growth', () => {
    // Short teeth early, long ones late (V8 raises the old generation's limit as it goes): the last
    // quarter holds most of one long ramp, the first quarter the low halves of short ones.
    const summary = summarise(soak([[8, 163], [8, 163], [8, 163], [8, 163], [8, 163], [15, 170], [15, 170], [15, 170], [36, 185]]), 120);
    expect(summary.growthMb).toBeGreaterThan(7.75);
    expect(summary.bottoms).toMatchObject({ of: 'teeth', earlyMb: 155, lateMb: 155, growthMb: 0 });
  });

  it('rise with a leak, by what leaked between the windows', () => {
    const teeth = Array.from({ length: 15 }, (): [number, number] => [9, 170]);
    const flat = summarise(soak(teeth), 120);
    const leaking = summarise(soak(teeth, { leakPerSec: 0.15 }), 120);
    expect(flat.bottoms?.growthMb).toBe(0);
    // Bottoms at 18, 27, 36 s early and 90, 99, 108, 117 s late; the medians (nearest rank) are those
    // at 27 and 99 s: 0.15 MB/s × 72 s.
    expect(leaking.bottoms?.growthMb).toBeCloseTo(10.8, 5);
  });

  it('leave the harness\'s forced collections out', () => {
    const summary = summarise(soak(Array.from({ length: 15 }, (): [number, number] => [9, 170])), 120);
    expect(summary.bottoms).toMatchObject({ of: 'teeth', early: 3, late: 4 });
  });

  it('are each window\'s lowest sample when a window holds no tooth\'s bottom, which a leak lifts too', () => {
    // Teeth of 50 s: the first ends at 50 s, after the early window (12-44 s), whose lowest sample is
    // then its start, 12 s up the first ramp; the late window (84-120 s) holds the third tooth's bottom.
    const teeth = Array.from({ length: 3 }, (): [number, number] => [50, 175]);
    const flat = summarise(soak(teeth, { forcedAt: [] }), 120);
    expect(flat.bottoms).toMatchObject({ of: 'lowest', earlyMb: 159.8, lateMb: 155, growthMb: -4.8 });
    const leaking = summarise(soak(teeth, { forcedAt: [], leakPerSec: 0.2 }), 120);
    expect(leaking.bottoms?.of).toBe('lowest');
    expect(leaking.bottoms?.growthMb).toBeGreaterThan(10);
  });
});
