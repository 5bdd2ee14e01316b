import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { callerOpenaiChannels, type ChannelCaller } from '../../routing/caller-openai-channels.js';

/** A Seedance 2 model name (`doubao-seedance-2-0-260128`, `…-2-0-fast-…`): its channel serves the asset routes. */
const seedance2 = /seedance-2/i;

/** Who asks: the caller's group, its key's pinned channel, and the models its key may use. */
export type AssetCaller = ChannelCaller;

/**
 * Pure: the channels that serve a caller's Seedance asset routes (`/api/asset/createMedia`, `/api/asset/get`),
 * best first — enabled OpenAI-style channels of its group (or its key's pinned channel) that set
 * `settings.asset_api: true`, or list a Seedance 2 model (by its name or the name it maps to) and do not
 * set `asset_api: false`, and that list a model the caller's key may use (a key limited to chat models
 * reaches no asset channel); the highest priority first, then the heaviest weight, then the oldest.
 */
export function assetChannels(channels: readonly ChannelRecord[], caller: AssetCaller): ChannelRecord[] {
  return callerOpenaiChannels(channels, caller, servesAssets);
}

function servesAssets(channel: ChannelRecord): boolean {
  const flag = channel.settings.asset_api;
  if (typeof flag === 'boolean') return flag;
  return channel.models.some((model) => seedance2.test(model) || seedance2.test(channel.modelMapping[model] ?? ''));
}
