import { describe, expect, it } from 'vitest';
import { LocalResponseMemory, parseRememberedResponse } from './response-memory.js';

const entry = (channelId: number) => ({ channelId, userId: 7, contextTokens: 100 });

describe('LocalResponseMemory', () => {
  it('keeps at most maxEntries, dropping the least recently written', async () => {
    const memory = new LocalResponseMemory({ maxEntries: 2, ttlMs: 60_000, now: () => 0 });
    memory.remember('a', entry(1));
    memory.remember('b', entry(2));
    memory.remember('a', entry(3));
    memory.remember('c', entry(4));
    expect(memory.size).toBe(2);
    expect(await memory.recall('b')).toBeUndefined();
    expect(await memory.recall('a')).toEqual(entry(3));
    expect(await memory.recall('c')).toEqual(entry(4));
  });

  it('forgets an entry once its time is up', async () => {
    let now = 1_000;
    const memory = new LocalResponseMemory({ maxEntries: 10, ttlMs: 500, now: () => now });
    memory.remember('a', entry(1));
    now = 1_499;
    expect(await memory.recall('a')).toEqual(entry(1));
    now = 1_500;
    expect(await memory.recall('a')).toBeUndefined();
    expect(memory.size).toBe(0);
  });
});

describe('parseRememberedResponse', () => {
  it('reads back what was written, and nothing malformed', () => {
    expect(parseRememberedResponse(JSON.stringify(entry(5)))).toEqual(entry(5));
    expect(parseRememberedResponse(null)).toBeUndefined();
    expect(parseRememberedResponse('not json')).toBeUndefined();
    expect(parseRememberedResponse(JSON.stringify({ channelId: '5', userId: 7, contextTokens: 1 }))).toBeUndefined();
    expect(parseRememberedResponse(JSON.stringify({ channelId: 5, userId: 7, contextTokens: 1.5 }))).toBeUndefined();
  });

  it('reads back the key fingerprint, and an entry written without one (or with a malformed one) as the channel alone', () => {
    const withKey = { ...entry(5), keyFingerprint: 'a'.repeat(32) };
    expect(parseRememberedResponse(JSON.stringify(withKey))).toEqual(withKey);
    expect(parseRememberedResponse(JSON.stringify({ ...entry(5), keyFingerprint: 12 }))).toEqual(entry(5));
    expect(parseRememberedResponse(JSON.stringify({ ...entry(5), keyFingerprint: 'x'.repeat(65) }))).toEqual(entry(5));
  });
});
