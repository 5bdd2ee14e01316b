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
  /** By key value, not position: a key an operator replaces is a new key, usable at once on every replica. */
  private readonly keysAside = new Map<number, Set<string>>();
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
  pickKey(channel: ChannelRecord): string | undefined {
    const aside = this.keysAside.get(channel.id);
    const count = channel.keys.length;
    const start = this.rotation.get(channel.id) ?? 0;
    for (let offset = 0; offset < count; offset += 1) {
      const index = (start + offset) % count;
      const key = channel.keys[index];
      if (key === undefined || aside?.has(key)) continue;
      this.rotation.set(channel.id, index + 1);
      return key;
    }
    return undefined;
  }

  /** Whether a key of the channel was set aside (rejected): it is not used until the channel is reset. */
  isKeyAside(channelId: number, key: string): boolean {
    return this.keysAside.get(channelId)?.has(key) === true;
  }

  /**
   * Stops using a rejected key. With `keepLast` (a channel whose auto_disable is off: the operator keeps
   * it in service) the last usable key stays. Returns whether the key is set aside (now, or already by a
   * request that failed with it at the same time), and how many usable keys are left.
   */
  setKeyAside(channel: ChannelRecord, key: string, options: { keepLast: boolean }): { setAside: boolean; usableLeft: number } {
    const aside = this.keysAside.get(channel.id) ?? new Set<string>();
    const usable = channel.keys.filter((candidate) => !aside.has(candidate)).length;
    if (aside.has(key)) return { setAside: true, usableLeft: usable };
    if (options.keepLast && usable <= 1) return { setAside: false, usableLeft: usable };
    aside.add(key);
    this.keysAside.set(channel.id, aside);
    return { setAside: true, usableLeft: usable - 1 };
  }

  /** After an operator edits or re-tests a channel, forget what was learned about it. */
  reset(channelId: number): void {
    this.failures.delete(channelId);
    this.keysAside.delete(channelId);
  }
}
