import type { ChannelRecord } from '../catalog/catalog-records.js';

/** Who asks: the caller's group, its key's pinned channel, and the models its key may use (`model_limits`). */
export interface ChannelCaller {
  group: string;
  pinnedChannelId: number | undefined;
  allowsModel(model: string): boolean;
}

/**
 * Pure: for a route that names no model (Seedance assets, conversations), the enabled `openai` channels that
 * `serve` it, of the caller's group (or its key's pinned channel), listing a model its key may use (a key
 * limited to other models reaches none); the highest priority first, then the heaviest weight, then the
 * oldest.
 */
export function callerOpenaiChannels(channels: readonly ChannelRecord[], caller: ChannelCaller, serves: (channel: ChannelRecord) => boolean): ChannelRecord[] {
  const { group, pinnedChannelId } = caller;
  return channels
    .filter(
      (channel) =>
        channel.status === 'enabled' &&
        channel.type === 'openai' &&
        (pinnedChannelId === undefined ? channel.groups.includes(group) : channel.id === pinnedChannelId) &&
        serves(channel) &&
        channel.models.some((model) => caller.allowsModel(model)),
    )
    .sort((a, b) => b.priority - a.priority || b.weight - a.weight || a.id - b.id);
}
