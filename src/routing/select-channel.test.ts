import { describe, expect, it } from 'vitest';
import type { ChannelRecord } from '../catalog/catalog-records.js';
import { candidateChannels, selectChannel } from './select-channel.js';

function channel(id: number, overrides: Partial<ChannelRecord> = {}): ChannelRecord {
  return {
    id,
    name: `channel-${id}`,
    type: 'openai',
    baseUrl: 'http://127.0.0.1:1',
    keys: ['sk-test'],
    models: ['gpt-4o-mini'],
    groups: ['default'],
    priority: 0,
    weight: 1,
    modelMapping: {},
    settings: {},
    status: 'enabled',
    autoDisable: true,
    statusReason: null,
    usedQuota: 0,
    requestCount: 0,
    ...overrides,
  };
}

const query = { group: 'default', model: 'gpt-4o-mini', excluded: new Set<number>(), coolingDown: new Set<number>(), pinnedChannelId: undefined };

describe('selectChannel', () => {
  it('picks the highest priority first', () => {
    const channels = [channel(1, { priority: 0 }), channel(2, { priority: 10 }), channel(3, { priority: 5 })];
    expect(selectChannel(channels, query, () => 0.99)?.id).toBe(2);
  });

  it('never picks a channel already tried and falls to the next priority', () => {
    const channels = [channel(1, { priority: 0 }), channel(2, { priority: 10 })];
    expect(selectChannel(channels, { ...query, excluded: new Set([2]) }, () => 0)?.id).toBe(1);
    expect(selectChannel(channels, { ...query, excluded: new Set([1, 2]) }, () => 0)).toBeUndefined();
  });

  it('chooses by weight inside one priority', () => {
    const channels = [channel(1, { weight: 1 }), channel(2, { weight: 3 })];
    expect(selectChannel(channels, query, () => 0.2)?.id).toBe(1);
    expect(selectChannel(channels, query, () => 0.3)?.id).toBe(2);
    const counts = new Map<number, number>();
    for (let step = 0; step < 400; step += 1) {
      const picked = selectChannel(channels, query, () => step / 400)!.id;
      counts.set(picked, (counts.get(picked) ?? 0) + 1);
    }
    expect(counts.get(1)).toBe(100);
    expect(counts.get(2)).toBe(300);
  });

  it('treats all-zero weights as equal', () => {
    const channels = [channel(1, { weight: 0 }), channel(2, { weight: 0 })];
    expect(selectChannel(channels, query, () => 0.1)?.id).toBe(1);
    expect(selectChannel(channels, query, () => 0.9)?.id).toBe(2);
  });

  it('skips disabled channels, other groups and other models', () => {
    const channels = [channel(1, { status: 'disabled' }), channel(2, { status: 'auto_disabled' }), channel(3, { groups: ['vip'] }), channel(4, { models: ['other'] }), channel(5)];
    expect(candidateChannels(channels, query).map((candidate) => candidate.id)).toEqual([5]);
  });

  it('prefers channels that are not cooling down, but uses them when nothing else is left', () => {
    const channels = [channel(1, { priority: 10 }), channel(2, { priority: 0 })];
    expect(selectChannel(channels, { ...query, coolingDown: new Set([1]) }, () => 0)?.id).toBe(2);
    expect(selectChannel([channel(1)], { ...query, coolingDown: new Set([1]) }, () => 0)?.id).toBe(1);
  });

  it('serves only the pinned channel when an admin pins one, whatever its groups', () => {
    const channels = [channel(1, { priority: 10 }), channel(2, { groups: ['vip'] })];
    expect(selectChannel(channels, { ...query, pinnedChannelId: 2 }, () => 0)?.id).toBe(2);
    expect(selectChannel(channels, { ...query, pinnedChannelId: 3 }, () => 0)).toBeUndefined();
  });

  it("serves a route's pin (a remix, a continued task) only when the channel is still in the caller's group", () => {
    const channels = [channel(1, { priority: 10 }), channel(2, { groups: ['vip'] })];
    expect(selectChannel(channels, { ...query, pinnedChannelId: 2, pinKeepsGroup: true }, () => 0)).toBeUndefined();
    expect(selectChannel(channels, { ...query, pinnedChannelId: 1, pinKeepsGroup: true }, () => 0)?.id).toBe(1);
  });

  it('chooses the preferred channel (the one holding a stored response) over priority and cooldown while it is a candidate', () => {
    const channels = [channel(1, { priority: 10 }), channel(2, { priority: 0 }), channel(3, { groups: ['vip'] })];
    expect(selectChannel(channels, { ...query, preferredChannelId: 2, coolingDown: new Set([2]) }, () => 0)?.id).toBe(2);
    // Tried already, or outside the caller's group: the usual choice.
    expect(selectChannel(channels, { ...query, preferredChannelId: 2, excluded: new Set([2]) }, () => 0)?.id).toBe(1);
    expect(selectChannel(channels, { ...query, preferredChannelId: 3 }, () => 0)?.id).toBe(1);
  });
});

describe('candidateChannels with channel types', () => {
  it('keeps only channels of the types that can serve the request', () => {
    const channels = [channel(1, { type: 'openai' }), channel(2, { type: 'anthropic' })];
    expect(candidateChannels(channels, { ...query, channelTypes: new Set(['openai']) }).map((candidate) => candidate.id)).toEqual([1]);
    expect(candidateChannels(channels, query).map((candidate) => candidate.id)).toEqual([1, 2]);
  });

  it('keeps only channels a channel filter passes, alone or with a type set, each answer apart', () => {
    const speaksChat = (candidate: ChannelRecord) => candidate.settings.api !== 'responses';
    const openaiOnly = new Set(['openai']);
    const channels = [channel(1, { settings: { api: 'responses' } }), channel(2), channel(3, { type: 'anthropic' })];
    expect(candidateChannels(channels, { ...query, channelFilter: speaksChat }).map((candidate) => candidate.id)).toEqual([2, 3]);
    expect(candidateChannels(channels, { ...query, channelTypes: openaiOnly, channelFilter: speaksChat }).map((candidate) => candidate.id)).toEqual([2]);
    expect(candidateChannels(channels, { ...query, channelTypes: openaiOnly }).map((candidate) => candidate.id)).toEqual([1, 2]);
    expect(selectChannel(channels, { ...query, channelTypes: openaiOnly, channelFilter: speaksChat }, () => 0)?.id).toBe(2);
  });
});

describe('candidateChannels cache', () => {
  it('answers a repeated group and model from the same channel list with the same (frozen) array', () => {
    const channels = [channel(1), channel(2, { models: ['other'] }), channel(3)];
    const first = candidateChannels(channels, query);
    expect(first.map((candidate) => candidate.id)).toEqual([1, 3]);
    expect(candidateChannels(channels, query)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('keeps answers apart per channel list, group, model and channel-type set', () => {
    const openaiOnly = new Set(['openai']);
    const channels = [channel(1, { type: 'anthropic', groups: ['default', 'vip'] }), channel(2, { models: ['gpt-4o-mini', 'other'] })];
    expect(candidateChannels(channels, query).map((candidate) => candidate.id)).toEqual([1, 2]);
    expect(candidateChannels(channels, { ...query, channelTypes: openaiOnly }).map((candidate) => candidate.id)).toEqual([2]);
    expect(candidateChannels(channels, { ...query, group: 'vip' }).map((candidate) => candidate.id)).toEqual([1]);
    expect(candidateChannels(channels, { ...query, model: 'other' }).map((candidate) => candidate.id)).toEqual([2]);
    // A new catalog snapshot is a new list: a channel disabled there is no longer a candidate.
    const reloaded = [channel(1, { type: 'anthropic', groups: ['default', 'vip'], status: 'disabled' }), channel(2, { models: ['gpt-4o-mini', 'other'] })];
    expect(candidateChannels(reloaded, query).map((candidate) => candidate.id)).toEqual([2]);
    expect(candidateChannels(channels, query).map((candidate) => candidate.id)).toEqual([1, 2]);
  });

  it('does not keep empty answers, so unknown model names sent by clients fill nothing', () => {
    const channels = [channel(1)];
    const empty = candidateChannels(channels, { ...query, model: 'no-such-model' });
    expect(empty).toEqual([]);
    expect(candidateChannels(channels, { ...query, model: 'no-such-model' })).not.toBe(empty);
  });
});
