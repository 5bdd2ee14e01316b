/**
 * What a soak's RSS samples say about growth. Under steady load the gateway's RSS is a sawtooth: the old
 * generation fills, a mark-compact drops RSS by 10–20 MB, and it fills again, a tooth every 5–40 s
 * depending on the host. The medians of two quarters of the soak move with where the teeth fall (session
 * 15 read +10.2 MB with the retained heap flat); the bottoms of the teeth, compared with each other, do
 * not: a leak lifts them, a lazy collector does not.
 */
import { median, round, slope } from './stats.mjs';

/** The share of the soak skipped at the start (JIT, pools and caches filling). */
const warmShare = 0.1;

/**
 * The bottom of each tooth: where RSS fell by at least `dropMb` (or 2 % of it) from one sample to the
 * next, the lowest sample of that fall. `samples` are { tSec, rssMb } in time order.
 */
export function sawtoothTroughs(samples, dropMb = 3) {
  const troughs = [];
  let index = 1;
  while (index < samples.length) {
    const before = samples[index - 1].rssMb;
    if (before - samples[index].rssMb >= Math.max(dropMb, before * 0.02)) {
      let bottom = index;
      while (bottom + 1 < samples.length && samples[bottom + 1].rssMb < samples[bottom].rssMb) bottom++;
      troughs.push(samples[bottom]);
      index = bottom + 1;
    } else index++;
  }
  return troughs;
}

/**
 * The soak's growth two ways: the median of the first quarter against the last (after the first 10 %),
 * and the bottoms early (before `earlyEndShare`) against late (from `lateStartShare`). The bottoms are the
 * median of the teeth's bottoms in each window when both windows hold one; otherwise (teeth longer than a
 * window, as on slow hosts) each window's lowest sample, which is a tooth's bottom or the start of a ramp
 * inside it: a leak lifts both. The windows keep clear of the harness's own forced collections in the
 * middle half, whose drops are not teeth.
 */
export function summariseSoakRss(samples, soakSec, { earlyEndShare = 0.37, lateStartShare = 0.7 } = {}) {
  const steady = samples.slice(Math.floor(samples.length * warmShare));
  const quarter = Math.max(1, Math.floor(steady.length / 4));
  const firstMb = median(steady.slice(0, quarter).map((s) => s.rssMb));
  const lastMb = median(steady.slice(-quarter).map((s) => s.rssMb));
  const inEarly = (s) => s.tSec < earlyEndShare * soakSec;
  const inLate = (s) => s.tSec >= lateStartShare * soakSec;
  const early = steady.filter(inEarly);
  const late = steady.filter(inLate);
  return {
    firstQuarterMedianMb: round(firstMb, 1),
    lastQuarterMedianMb: round(lastMb, 1),
    growthMb: round(lastMb - firstMb, 1),
    slopeMbPerMin: round(slope(steady.map((s) => s.tSec), steady.map((s) => s.rssMb)) * 60, 2),
    bottoms: early.length === 0 || late.length === 0 ? undefined : bottomsOf(sawtoothTroughs(steady), early, late, inEarly, inLate),
  };
}

/** The teeth's bottoms in both windows, else each window's lowest sample. */
function bottomsOf(teeth, early, late, inEarly, inLate) {
  const earlyTeeth = teeth.filter(inEarly).map((s) => s.rssMb);
  const lateTeeth = teeth.filter(inLate).map((s) => s.rssMb);
  const byTeeth = earlyTeeth.length > 0 && lateTeeth.length > 0;
  const earlyMb = byTeeth ? median(earlyTeeth) : Math.min(...early.map((s) => s.rssMb));
  const lateMb = byTeeth ? median(lateTeeth) : Math.min(...late.map((s) => s.rssMb));
  return {
    of: byTeeth ? 'teeth' : 'lowest',
    earlyMb: round(earlyMb, 1),
    lateMb: round(lateMb, 1),
    growthMb: round(lateMb - earlyMb, 1),
    ...(byTeeth ? { early: earlyTeeth.length, late: lateTeeth.length } : {}),
  };
}
