import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * Run in a child process: the flag changes V8's behaviour for the whole process. The child keeps a ring
 * of objects that outlive two scavenges (promoted, then garbage), the way log rows waiting for their batch
 * do, and reports the largest old space it saw.
 */
function oldSpacePeakMb(percent: number, execArgv: string[] = []): { peakMb: number; applied: boolean } {
  const script = `
    const { getHeapSpaceStatistics } = require('node:v8');
    import(${JSON.stringify(new URL('./tune-heap-growth.ts', import.meta.url).href)}).then(({ tuneHeapGrowth }) => {
      const applied = tuneHeapGrowth(${percent});
      const keep = []; for (let i = 0; i < 300000; i++) keep.push({ a: i, b: 'x' + i });
      const size = 300000; const ring = new Array(size); let at = 0; let peak = 0;
      for (let round = 0; round < 600; round++) {
        for (let i = 0; i < 5000; i++) { ring[at] = { v: [at, 'y' + at] }; at = (at + 1) % size; }
        const old = getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
        peak = Math.max(peak, old.space_size);
      }
      process.stdout.write(JSON.stringify({ peakMb: peak / 2 ** 20, applied, kept: keep.length }));
    });`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', ...execArgv, '-e', script], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as { peakMb: number; applied: boolean };
}

describe('tuneHeapGrowth', () => {
  it('collects the old generation sooner than V8 would, set at run time', () => {
    const v8Default = oldSpacePeakMb(0);
    const tuned = oldSpacePeakMb(50);
    expect(v8Default.applied).toBe(false);
    expect(tuned.applied).toBe(true);
    expect(tuned.peakMb).toBeLessThan(v8Default.peakMb * 0.75);
  });

  it('leaves a --heap-growing-percent given to node alone', () => {
    const explicit = oldSpacePeakMb(50, ['--heap-growing-percent=300']);
    expect(explicit.applied).toBe(false);
  });
});
