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
});
