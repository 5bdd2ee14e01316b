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
});
