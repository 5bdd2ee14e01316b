import type { ChannelRecord } from '../../catalog/catalog-records.js';

/** A Seedance 2 model name (`doubao-seedance-2-0-260128`, `…-2-0-fast-…`): its channel serves the asset routes. */
const seedance2 = /seedance-2/i;

/**
 * Pure: the channels that serve a caller's Seedance asset routes (`/api/asset/createMedia`, `/api/asset/get`),
 * best first — enabled OpenAI-style channels of its group (or its key's pinned channel) that set
 * `settings.asset_api: true`, or list a Seedance 2 model (by its name or the name it maps to) and do not
 * set `asset_api: false`; the highest priority first, then the heaviest weight, then the oldest.
 */
export function assetChannels(channels: readonly ChannelRecord[], group: string, pinnedChannelId: number | undefined): ChannelRecord[] {
  return channels
    .filter((channel) => channel.status === 'enabled' && channel.type === 'openai' && (pinnedChannelId === undefined ? channel.groups.includes(group) : channel.id === pinnedChannelId) && servesAssets(channel))
    .sort((a, b) => b.priority - a.priority || b.weight - a.weight || a.id - b.id);
}

function servesAssets(channel: ChannelRecord): boolean {
  const flag = channel.settings.asset_api;
  if (typeof flag === 'boolean') return flag;
  return channel.models.some((model) => seedance2.test(model) || seedance2.test(channel.modelMapping[model] ?? ''));
}
