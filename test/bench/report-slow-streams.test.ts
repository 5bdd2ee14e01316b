import { describe, expect, it } from 'vitest';
import { benchRun, renderReport, type Target } from './report-fixture.js';

/** One side of scenario 5 as bench/lib/stream-client.mjs reports it, plus what the harness adds for a relay. */
function streams(overrides: Record<string, unknown>) {
  const summary = (p50: number, p99: number) => ({ count: 1000, mean: p50, p50, p90: p99, p99, p999: p99, max: p99 });
  return {
    concurrency: 1000,
    durationSec: 11,
    streams: 10_000,
    completed: 10_000,
    failed: 0,
    errorKinds: {},
    streamsPerSec: 909,
    ttftMs: summary(12, 700),
    gapMs: summary(50, 60),
    perStreamMeanGapMs: summary(50, 51),
    maxGapMs: summary(150, 200),
    totalMs: summary(990, 1500),
    deliveryUs: summary(100, 300),
    perStreamDriftUs: summary(0, 1),
    midStreamStalls: 0,
    slowFirstToken: 0,
    stallMs: 1000,
    ...overrides,
  };
}

/** A run with scenario 5 only, through report.mjs as `node bench/run.mjs --only 5` would write it. */
const run = (slowStreams: Record<string, unknown>) => benchRun({ slowStreams });

describe('the BENCHMARKS.md report of scenario 5 (1,000 slow streams)', () => {
  const render = renderReport;

  it('puts the pass-through beside the gateway, with each relay’s CPU per stream, and quotes it in a miss', () => {
    const results = run({
      direct: streams({}),
      gateway: streams({ slowFirstToken: 12, gatewayRssPeakMb: 240, gatewayCpuPercent: 67, gatewayCpuMsPerStream: 0.733, upstreamConnectionsPeak: 1000, ownFirstToken: { streams: 10_000, slow: 0, ms: { p50: 13, p99: 409, max: 415 } } }),
      baselineProxy: streams({ slowFirstToken: 3, gatewayRssPeakMb: 200, gatewayCpuPercent: 53, gatewayCpuMsPerStream: 0.579, upstreamConnectionsPeak: 998 }),
      ratio: 1,
    });
    const text = render(results);
    expect(text).toContain('| | direct (fake) | gateway | bare Fastify + undici pass-through |');
    expect(text).toContain('| relay RSS peak / CPU / CPU per stream |  | 240.0 MB / 67 % / 733 µs | 200.0 MB / 53 % / 579 µs |');
    expect(text).toContain('| first token later than 1000 ms | 0 | 12 | 3 |');
    expect(text).toContain('| relay → upstream connections (peak, /proc/net/tcp) |  | 1000 | 998 |');
    const target = (results.targets as Target[]).find((t) => t.name.includes('slow streams'));
    expect(target?.pass).toBe(false);
    expect(target?.miss).toContain('the same streams through a bare Fastify + undici pass-through: 3 first tokens > 1 s');
    expect(target?.miss).toContain('579 µs of CPU per stream, the gateway 733 µs');
  });

  it('keeps the two-column table when the pass-through did not run (--no-baseline)', () => {
    const results = run({ direct: streams({}), gateway: streams({ gatewayRssPeakMb: 240, gatewayCpuPercent: 67, gatewayCpuMsPerStream: 0.733 }), ratio: 1 });
    const text = render(results);
    expect(text).toContain('| | direct (fake) | gateway |\n|---|---|---|\n');
    expect(text).not.toContain('pass-through');
    const target = (results.targets as Target[]).find((t) => t.name.includes('slow streams'));
    expect(target?.pass).toBe(true);
  });
});
