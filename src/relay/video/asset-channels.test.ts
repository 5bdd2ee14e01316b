import { describe, expect, it } from 'vitest';
import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { assetChannels } from './asset-channels.js';

function channel(id: number, fields: Partial<ChannelRecord>): ChannelRecord {
  return { id, name: `c${id}`, type: 'openai', baseUrl: 'http://x', keys: ['k'], models: [], groups: ['default'], priority: 0, weight: 1, modelMapping: {}, settings: {}, status: 'enabled', autoDisable: false, statusReason: null, usedQuota: 0, requestCount: 0, ...fields };
}

const reach = (group: string, pinnedChannelId: number | undefined, allowsModel = (_model: string) => true) => ({ group, pinnedChannelId, allowsModel });

describe('assetChannels', () => {
  const channels = [
    channel(1, { models: ['doubao-seedance-2-0-260128'] }),
    channel(2, { models: ['house'], settings: { asset_api: true }, priority: 5 }),
    channel(3, { models: ['alias'], modelMapping: { alias: 'doubao-seedance-2-0-fast-260128' }, weight: 9 }),
    channel(4, { models: ['doubao-seedance-2-0-260128'], settings: { asset_api: false } }),
    channel(5, { models: ['doubao-seedance-2-0-260128'], status: 'disabled' }),
    channel(6, { models: ['doubao-seedance-2-0-260128'], groups: ['vip'] }),
    channel(7, { models: ['doubao-seedance-2-0-260128'], type: 'kling' }),
    channel(8, { models: ['doubao-seedance-1-5-pro_720p'] }),
  ];

  it('takes Seedance 2 channels (by name or mapping) and opted-in ones of the group, best first', () => {
    expect(assetChannels(channels, reach('default', undefined)).map((found) => found.id)).toEqual([2, 3, 1]);
  });

  it("another group's, a pinned key's channel only", () => {
    expect(assetChannels(channels, reach('vip', undefined)).map((found) => found.id)).toEqual([6]);
    expect(assetChannels(channels, reach('default', 6)).map((found) => found.id)).toEqual([6]);
    expect(assetChannels(channels, reach('default', 4))).toEqual([]);
  });

  it("a key whose model_limits name none of a channel's models does not reach it", () => {
    expect(assetChannels(channels, reach('default', undefined, (model) => model === 'house')).map((found) => found.id)).toEqual([2]);
    expect(assetChannels(channels, reach('default', undefined, (model) => model === 'gpt-4o'))).toEqual([]);
  });
});
