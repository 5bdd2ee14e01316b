import { describe, expect, it } from 'vitest';
import { attemptsJson } from './build-log-row.js';
import type { AttemptRecord } from './run-failover.js';

describe('attemptsJson', () => {
  it('writes exactly what JSON.stringify writes for the records failover makes', () => {
    const cases: AttemptRecord[][] = [
      [],
      [{ channel_id: 7, status: 200, latency_ms: 12 }],
      [
        { channel_id: 3, status: null, latency_ms: 5001, error: 'connect ECONNREFUSED 127.0.0.1:9 "quoted" \\ and \n newline, ☃' },
        { channel_id: 4, status: 429, latency_ms: 0.5, error: '' },
        { channel_id: 5, status: 200, latency_ms: 33 },
      ],
      [{ channel_id: 1, status: 500, latency_ms: 2, error: undefined }],
    ];
    for (const attempts of cases) expect(attemptsJson(attempts)).toBe(JSON.stringify(attempts));
  });

  it('leaves numbers JSON cannot write to JSON.stringify', () => {
    const attempts: AttemptRecord[] = [{ channel_id: 1, status: 200, latency_ms: Number.NaN }];
    expect(attemptsJson(attempts)).toBe(JSON.stringify(attempts));
  });
});
