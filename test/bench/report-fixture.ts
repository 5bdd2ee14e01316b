import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The harness is plain JavaScript (no build step).
// @ts-expect-error -- an .mjs module without type declarations
import { evaluateTargets, updateBenchmarksMd } from '../../bench/lib/report.mjs';

export interface Target {
  name: string;
  pass: boolean | undefined;
  measured?: string;
  miss?: string;
}

const evaluate = evaluateTargets as (results: unknown) => Target[];
const update = updateBenchmarksMd as (path: string, results: unknown) => void;

/** A run with only the given scenarios, with its targets evaluated, as `node bench/run.mjs --only …` writes it. */
export function benchRun(scenarios: Record<string, unknown>, command = 'node bench/run.mjs --only 5') {
  const results = {
    meta: {
      date: '2026-11-27T06:00:00.000Z',
      storage: 'sqlite',
      node: 'v20',
      autocannon: '9',
      commit: 'abc1234',
      command,
      machine: { cores: 2, cpuModel: 'test CPU', memoryGb: 8, loadAverageAtStart: [0, 0, 0] },
      pinning: { used: false },
      settings: { durationSec: 10, warmupSec: 2, soakSec: 120 },
      loadAverageAtEnd: [0, 0, 0],
    },
    scenarios,
  } as Record<string, unknown> & { targets?: Target[] };
  results.targets = evaluate(results);
  return results as Record<string, unknown> & { targets: Target[] };
}

/** BENCHMARKS.md as report.mjs writes it for `results`, in a directory of its own that is removed after. */
export function renderReport(results: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'report-'));
  try {
    const path = join(dir, 'BENCHMARKS.md');
    update(path, results);
    return readFileSync(path, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
