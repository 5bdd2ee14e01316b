import { describe, expect, it } from 'vitest';
import { generateRequestId } from './generate-request-id.js';

describe('generateRequestId', () => {
  it('gives 32 hex digits, never the same twice, across pool refills', () => {
    const ids = new Set<string>();
    for (let index = 0; index < 2_000; index += 1) {
      const id = generateRequestId();
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(2_000);
  });

  it('starts with the millisecond time, so ids of later milliseconds sort after earlier ones', () => {
    const at = Date.UTC(2026, 10, 26, 9, 0, 0, 123);
    const first = generateRequestId(at);
    expect(first.slice(0, 12)).toBe(at.toString(16).padStart(12, '0'));
    const later = [generateRequestId(at + 1), generateRequestId(at + 1_000), generateRequestId(at + 86_400_000)];
    const all = [first, ...later];
    expect([...all].sort()).toEqual(all);
    // Within one millisecond only the random part differs.
    const same = [generateRequestId(at), generateRequestId(at)];
    expect(same[0]!.slice(0, 12)).toBe(same[1]!.slice(0, 12));
    expect(same[0]).not.toBe(same[1]);
  });
});
