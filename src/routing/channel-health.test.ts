import { describe, expect, it } from 'vitest';
import type { ChannelRecord } from '../catalog/catalog-records.js';
import { ChannelHealth } from './channel-health.js';

function channel(keys: string[], id = 1): ChannelRecord {
  return {
    id, name: `c${id}`, type: 'openai', baseUrl: 'http://upstream', keys, models: ['m'], groups: ['default'], priority: 0, weight: 1,
    modelMapping: {}, settings: {}, status: 'enabled', autoDisable: true, statusReason: null, usedQuota: 0, requestCount: 0,
  };
}

const health = () => new ChannelHealth({ failureThreshold: 3, cooldownMs: 30_000 });

describe('ChannelHealth keys', () => {
  it('rotates over the keys and skips one set aside', () => {
    const state = health();
    const c = channel(['a', 'b', 'c']);
    expect([state.pickKey(c), state.pickKey(c), state.pickKey(c), state.pickKey(c)]).toEqual(['a', 'b', 'c', 'a']);
    expect(state.setKeyAside(c, 'b', { keepLast: false })).toEqual({ setAside: true, usableLeft: 2 });
    expect([state.pickKey(c), state.pickKey(c), state.pickKey(c)]).toEqual(['c', 'a', 'c']);
  });

  it('tells whether a key is set aside, until the channel is reset', () => {
    const state = health();
    const c = channel(['a', 'b']);
    state.setKeyAside(c, 'a', { keepLast: false });
    expect([state.isKeyAside(1, 'a'), state.isKeyAside(1, 'b'), state.isKeyAside(2, 'a')]).toEqual([true, false, false]);
    state.reset(1);
    expect(state.isKeyAside(1, 'a')).toBe(false);
  });

  it('says when no key is left, and then picks none', () => {
    const state = health();
    const c = channel(['a']);
    expect(state.setKeyAside(c, 'a', { keepLast: false })).toEqual({ setAside: true, usableLeft: 0 });
    expect(state.pickKey(c)).toBeUndefined();
  });

  it('keeps the last usable key of a channel whose auto_disable is off', () => {
    const state = health();
    const c = channel(['a', 'b']);
    expect(state.setKeyAside(c, 'a', { keepLast: true })).toEqual({ setAside: true, usableLeft: 1 });
    expect(state.setKeyAside(c, 'b', { keepLast: true })).toEqual({ setAside: false, usableLeft: 1 });
    expect(state.pickKey(c)).toBe('b');
  });

  it('a key a concurrent request already set aside is reported set aside, with the keys still usable', () => {
    const state = health();
    const c = channel(['a', 'b']);
    state.setKeyAside(c, 'a', { keepLast: false });
    expect(state.setKeyAside(c, 'a', { keepLast: false })).toEqual({ setAside: true, usableLeft: 1 });
  });

  it('remembers rejected keys by value: a replaced key is usable at once', () => {
    const state = health();
    state.setKeyAside(channel(['old']), 'old', { keepLast: false });
    expect(state.pickKey(channel(['old']))).toBeUndefined();
    expect(state.pickKey(channel(['new']))).toBe('new');
  });

  it('forgets keys set aside and failures when reset', () => {
    const state = health();
    const c = channel(['a']);
    state.setKeyAside(c, 'a', { keepLast: false });
    for (let count = 0; count < 3; count += 1) state.recordFailure(c.id, 1_000);
    expect(state.coolingDown(1_000).has(c.id)).toBe(true);
    state.reset(c.id);
    expect(state.pickKey(c)).toBe('a');
    expect(state.coolingDown(1_000).has(c.id)).toBe(false);
  });
});
