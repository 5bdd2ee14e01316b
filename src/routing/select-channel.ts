import type { ChannelRecord } from '../catalog/catalog-records.js';

export interface ChannelQuery {
  group: string;
  model: string;
  /** Channels already tried in this request: never chosen again (new-api #2899). */
  excluded: ReadonlySet<number>;
  /** Channels in a failure cooldown: chosen only when nothing else is left. */
  coolingDown: ReadonlySet<number>;
  /** An admin's `sk-<key>-<channelId>` pin: only that channel, whatever its groups. */
  pinnedChannelId: number | undefined;
  /** Channel types that can serve this request (embeddings only reach OpenAI-compatible channels); undefined = any. */
  channelTypes?: ReadonlySet<string>;
}

/** Channels that could ever serve this group and model (enabled, listing the model, in the group). */
export function candidateChannels(channels: readonly ChannelRecord[], query: Pick<ChannelQuery, 'group' | 'model' | 'pinnedChannelId' | 'channelTypes'>): ChannelRecord[] {
  const servable = (channel: ChannelRecord) =>
    channel.status === 'enabled' && channel.models.includes(query.model) && (query.channelTypes === undefined || query.channelTypes.has(channel.type));
  if (query.pinnedChannelId !== undefined) return channels.filter((channel) => channel.id === query.pinnedChannelId && servable(channel));
  return channels.filter((channel) => servable(channel) && channel.groups.includes(query.group));
}

/**
 * Pure channel choice: highest priority first, weighted random inside one priority, never a channel
 * already tried, cooling-down channels last. `random` returns [0, 1).
 */
export function selectChannel(channels: readonly ChannelRecord[], query: ChannelQuery, random: () => number): ChannelRecord | undefined {
  const open = candidateChannels(channels, query).filter((channel) => !query.excluded.has(channel.id));
  const healthy = open.filter((channel) => !query.coolingDown.has(channel.id));
  const pool = healthy.length > 0 ? healthy : open;
  if (pool.length === 0) return undefined;
  let topPriority = -Infinity;
  for (const channel of pool) if (channel.priority > topPriority) topPriority = channel.priority;
  const level = pool.filter((channel) => channel.priority === topPriority);
  return pickWeighted(level, random);
}

function pickWeighted(level: ChannelRecord[], random: () => number): ChannelRecord | undefined {
  // Weight 0 everywhere means "no preference", not "never".
  const total = level.reduce((sum, channel) => sum + Math.max(channel.weight, 0), 0);
  if (total === 0) return level[Math.floor(random() * level.length)];
  let point = random() * total;
  for (const channel of level) {
    point -= Math.max(channel.weight, 0);
    if (point < 0) return channel;
  }
  return level[level.length - 1];
}
