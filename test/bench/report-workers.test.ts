import { describe, expect, it } from 'vitest';
import { benchRun, renderReport } from './report-fixture.js';

const latency = (p50: number, p99: number) => ({ count: 20_000, mean: p50, p50, p90: p99, p99, p999: p99, max: p99 });

describe('the BENCHMARKS.md report of scenario 7 (relay serve --workers N)', () => {
  it('gives each run’s CPU per request over all the gateway’s processes, and says when it was not metered', () => {
    const results = benchRun(
      {
        workers: {
          measured: true,
          workers: 2,
          perWorkers: {
            1: { requestsPerSec: 2464.4, latencyMs: latency(18.4, 67.6), totalErrors: 0, processes: 1, cpuPercent: 99.6, cpuUsPerRequest: 404 },
            // A results file written before the CPU was metered.
            2: { requestsPerSec: 2172.1, latencyMs: latency(18, 91.9), totalErrors: 0 },
          },
          scaling: 2172.1 / 2464.4,
        },
      },
      'node bench/run.mjs --only 7',
    );
    const text = renderReport(results);
    expect(text).toContain('| workers | requests/s | p50 | p99 | errors | gateway CPU per request (all its processes) |');
    expect(text).toContain('| 1 | 2,464 | 18.40 ms | 67.60 ms | 0 | 404.0 µs (1 processes, 99.6 % CPU) |');
    expect(text).toMatch(/\| 2 \| 2,172 \| [^|]+ \| [^|]+ \| 0 \| — \|/);
    expect(text).toContain('`node bench/micro/two-writers.mjs`');
  });
});
