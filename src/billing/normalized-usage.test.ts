import { describe, expect, it } from 'vitest';
import { addAudio, sumUsage } from './normalized-usage.js';

describe('addAudio', () => {
  it('clamps the audio input to the plain input and the audio output to the output, and leaves zero shares out', () => {
    const usage = addAudio({ input: { total: 100, cacheRead: 30, cacheWrite: 10 }, output: { total: 20, reasoning: 0 } }, 500, 5);
    expect(usage).toEqual({ input: { total: 100, cacheRead: 30, cacheWrite: 10, audio: 60 }, output: { total: 20, reasoning: 0, audio: 5 } });
    expect(addAudio({ input: { total: 1, cacheRead: 0, cacheWrite: 0 }, output: { total: 1, reasoning: 0 } }, 0, 0)).toEqual({ input: { total: 1, cacheRead: 0, cacheWrite: 0 }, output: { total: 1, reasoning: 0 } });
  });
});

describe('sumUsage', () => {
  it('adds every count, the audio and 1-hour shares too, and keeps shares absent on both absent', () => {
    const a = { input: { total: 10, cacheRead: 1, cacheWrite: 2, cacheWrite1h: 1, audio: 4 }, output: { total: 5, reasoning: 1, audio: 2 } };
    const b = { input: { total: 20, cacheRead: 3, cacheWrite: 0, audio: 6 }, output: { total: 7, reasoning: 0 } };
    expect(sumUsage(a, b)).toEqual({ input: { total: 30, cacheRead: 4, cacheWrite: 2, cacheWrite1h: 1, audio: 10 }, output: { total: 12, reasoning: 1, audio: 2 } });
    expect(sumUsage(b, { input: { total: 1, cacheRead: 0, cacheWrite: 0 }, output: { total: 1, reasoning: 0 } })).toEqual({ input: { total: 21, cacheRead: 3, cacheWrite: 0, audio: 6 }, output: { total: 8, reasoning: 0 } });
  });
});
