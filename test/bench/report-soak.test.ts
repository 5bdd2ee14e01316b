import { describe, expect, it } from 'vitest';
import { benchRun } from './report-fixture.js';

const soak = (overrides: Record<string, unknown>) => ({
  seconds: 120,
  requests: 270_490,
  requestsPerSec: 2252,
  totalErrors: 0,
  rssStartMb: 111.5,
  rssPeakMb: 172.4,
  firstQuarterMedianMb: 153.9,
  lastQuarterMedianMb: 164.1,
  growthMb: 10.2,
  slopeMbPerMin: 5.18,
  ...overrides,
});

const soakTarget = (memory: Record<string, unknown>) => benchRun({ memory }, 'node bench/run.mjs --only 6').targets.find((target) => target.name.startsWith('RSS flat'));

describe('the soak target (scenario 6)', () => {
  it('puts the retained V8 heap of the forced collections beside an RSS growth over the allowance', () => {
    const target = soakTarget({ underLoadPeakMb: 172.4, soak: soak({ retainedHeapMb: [[45, 27.8], [64.8, 27.8], [122, 26.8]] }) });
    expect(target?.pass).toBe(false);
    expect(target?.miss).toBe('grew 10.2 MB; the V8 heap retained after forced full collections went 27.8 → 26.8 MB (second 45 → 122 of the soak)');
  });

  it('says only the growth when the soak read the heap less than twice', () => {
    const target = soakTarget({ underLoadPeakMb: 172.4, soak: soak({ retainedHeapMb: [[45, 27.8]] }) });
    expect(target?.miss).toBe('grew 10.2 MB');
  });

  it('judges by the sawtooth\'s bottoms when the soak has them early and late, whatever the quarters\' medians say', () => {
    const level = soakTarget({ underLoadPeakMb: 172.4, soak: soak({ bottoms: { of: 'teeth', earlyMb: 155.2, lateMb: 155.6, growthMb: 0.4, early: 2, late: 3 } }) });
    expect(level?.pass).toBe(true);
    expect(level?.measured).toBe("bottoms 155.2 → 155.6 MB (+0.4 MB; median of 2 / 3 teeth); quarters' medians 153.9 → 164.1 MB (+10.2 MB); slope 5.18 MB/min; 0 errors");

    const lowest = soakTarget({ underLoadPeakMb: 172.4, soak: soak({ bottoms: { of: 'lowest', earlyMb: 154.5, lateMb: 153, growthMb: -1.5 } }) });
    expect(lowest?.pass).toBe(true);
    expect(lowest?.measured).toMatch(/^bottoms 154.5 → 153.0 MB \(−1.5 MB; lowest sample of each window: no tooth ended in one of them\); quarters' medians/);

    const rising = soakTarget({ underLoadPeakMb: 172.4, soak: soak({ growthMb: 1, bottoms: { of: 'teeth', earlyMb: 150, lateMb: 159, growthMb: 9, early: 3, late: 4 } }) });
    expect(rising?.pass).toBe(false);
    expect(rising?.miss).toBe("grew 9.0 MB between the sawtooth's bottoms");
  });

  it('falls back on the quarters\' medians for a results file from before the bottoms', () => {
    expect(soakTarget({ underLoadPeakMb: 172.4, soak: soak({}) })?.pass).toBe(false);
    expect(soakTarget({ underLoadPeakMb: 172.4, soak: soak({ growthMb: 2.5 }) })?.pass).toBe(true);
  });
});
