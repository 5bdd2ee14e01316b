import { describe, expect, it } from 'vitest';
import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { conversationChannels } from './conversation-channels.js';

function channel(id: number, fields: Partial<ChannelRecord>): ChannelRecord {
  return { id, name: `c${id}`, type: 'openai', baseUrl: 'http://x', keys: ['k'], models: ['gpt-5'], groups: ['default'], priority: 0, weight: 1, modelMapping: {}, settings: { api: 'responses' }, status: 'enabled', autoDisable: false, statusReason: null, usedQuota: 0, requestCount: 0, ...fields };
}

const reach = (group: string, pinnedChannelId: number | undefined, allowsModel = (_model: string) => true) => ({ group, pinnedChannelId, allowsModel });

describe('conversationChannels', () => {
  const channels = [
    channel(1, {}),
    channel(2, { priority: 5, models: ['gpt-5-mini'] }),
    channel(3, { weight: 9 }),
    channel(4, { settings: {} }),
    channel(5, { settings: { api: 'chat' } }),
    channel(6, { status: 'disabled' }),
    channel(7, { groups: ['vip'] }),
    channel(8, { type: 'anthropic' }),
  ];

  it("takes the group's enabled OpenAI channels set to the Responses API, best first (priority, weight, age)", () => {
    expect(conversationChannels(channels, reach('default', undefined)).map((found) => found.id)).toEqual([2, 3, 1]);
  });

  it("another group's, a pinned key's channel only (and only if it holds conversations)", () => {
    expect(conversationChannels(channels, reach('vip', undefined)).map((found) => found.id)).toEqual([7]);
    expect(conversationChannels(channels, reach('default', 7)).map((found) => found.id)).toEqual([7]);
    expect(conversationChannels(channels, reach('default', 5))).toEqual([]);
  });

  it("a key whose model_limits name none of a channel's models does not reach it", () => {
    expect(conversationChannels(channels, reach('default', undefined, (model) => model === 'gpt-5')).map((found) => found.id)).toEqual([3, 1]);
    expect(conversationChannels(channels, reach('default', undefined, (model) => model === 'text-embedding-3-small'))).toEqual([]);
  });
});
