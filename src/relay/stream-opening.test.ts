import { describe, expect, it } from 'vitest';
import { StreamOpening } from './stream-opening.js';

describe('StreamOpening', () => {
  it('holds the opening until the first content; parts for billing only release nothing', () => {
    const written: string[] = [];
    const opening = new StreamOpening((text) => written.push(text));
    expect(opening.admit({ type: 'start', id: 'r', model: 'm' } as never)).toBe(true);
    opening.push('event: message_start\n\n');
    for (const part of [
      { type: 'usage', usage: { input: { total: 5, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 } } },
      { type: 'input-usage', input: { total: 5, cacheRead: 0, cacheWrite: 0 } },
      { type: 'web-searches', count: 2 },
      { type: 'uncarried-output', text: 'the second candidate' },
    ] as const) {
      expect(opening.admit(part as never)).toBe(true);
      expect({ type: part.type, written: written.length, holding: opening.holding }).toEqual({ type: part.type, written: 0, holding: true });
    }
    expect(opening.admit({ type: 'text-delta', text: 'Hi' } as never)).toBe(true);
    expect({ written, released: opening.released }).toEqual({ written: ['event: message_start\n\n'], released: true });
  });

  it('an error before any content keeps everything back and fails the attempt', () => {
    const written: string[] = [];
    const opening = new StreamOpening((text) => written.push(text));
    opening.push('event: message_start\n\n');
    expect(opening.admit({ type: 'uncarried-output', text: 'x' } as never)).toBe(true);
    expect(opening.admit({ type: 'error', message: 'overloaded' } as never)).toBe(false);
    expect({ written, failed: opening.failed }).toEqual({ written: [], failed: true });
  });
});
