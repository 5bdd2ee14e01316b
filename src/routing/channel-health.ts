import type { ChannelRecord } from '../catalog/catalog-records.js';

export interface ChannelHealthOptions {
  /** Consecutive failures that put a channel in cooldown. */
  failureThreshold: number;
  cooldownMs: number;
}

/**
 * Per-process channel health: consecutive-failure cooldowns, keys set aside after a 401, and key
 * rotation. Kept in memory on purpose: it is advice for routing, not money, and a replica that has not
 * seen the failures yet simply tries the channel once more.
 */
export class ChannelHealth {
  private readonly failures = new Map<number, { count: number; cooldownUntil: number }>();
  private readonly keysAside = new Map<number, Set<number>>();
  private readonly rotation = new Map<number, number>();

  constructor(private readonly options: ChannelHealthOptions) {}

  coolingDown(now: number): Set<number> {
    const cooling = new Set<number>();
    for (const [channelId, state] of this.failures) if (state.cooldownUntil > now) cooling.add(channelId);
    return cooling;
  }

  recordSuccess(channelId: number): void {
    this.failures.delete(channelId);
  }

  recordFailure(channelId: number, now: number): void {
    const state = this.failures.get(channelId) ?? { count: 0, cooldownUntil: 0 };
    state.count += 1;
    if (state.count >= this.options.failureThreshold) {
      state.cooldownUntil = now + this.options.cooldownMs;
      state.count = 0;
    }
    this.failures.set(channelId, state);
  }

  /** Round-robin over the channel's keys that are not set aside. */
  pickKey(channel: ChannelRecord): { key: string; index: number } | undefined {
    const aside = this.keysAside.get(channel.id);
    const count = channel.keys.length;
    const start = this.rotation.get(channel.id) ?? 0;
    for (let offset = 0; offset < count; offset += 1) {
      const index = (start + offset) % count;
      if (aside?.has(index)) continue;
      this.rotation.set(channel.id, index + 1);
      const key = channel.keys[index];
      if (key !== undefined) return { key, index };
    }
    return undefined;
  }

  /** Returns true when no usable key is left on the channel. */
  setKeyAside(channel: ChannelRecord, index: number): boolean {
    const aside = this.keysAside.get(channel.id) ?? new Set<number>();
    aside.add(index);
    this.keysAside.set(channel.id, aside);
    return aside.size >= channel.keys.length;
  }

  /** After an operator edits or re-tests a channel, forget what was learned about it. */
  reset(channelId: number): void {
    this.failures.delete(channelId);
    this.keysAside.delete(channelId);
  }
}
