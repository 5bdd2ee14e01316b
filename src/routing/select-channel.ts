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
  /**
   * The pin is a route's (a remix or a task continued on the channel that made its origin), not the
   * caller's: the channel must still be one of the caller's group.
   */
  pinKeepsGroup?: boolean;
  /** Channel types that can serve this request (embeddings only reach OpenAI-compatible channels); undefined = any. */
  channelTypes?: ReadonlySet<string>;
  /**
   * A narrower test a channel must pass (a Chat request with `n` > 1 needs an OpenAI channel that speaks
   * Chat, not one set to the Responses API); undefined = none. A module-level function: candidates are
   * cached by its identity, as by the type set's.
   */
  channelFilter?: (channel: ChannelRecord) => boolean;
  /**
   * The channel holding the state the request continues (a stored Responses answer): chosen first while it
   * is still a candidate, whatever its priority or cooldown — another channel's account would not know it.
   */
  preferredChannelId?: number;
}

type CandidateQuery = Pick<ChannelQuery, 'group' | 'model' | 'pinnedChannelId' | 'pinKeepsGroup' | 'channelTypes' | 'channelFilter'>;

/**
 * Candidates found so far, per channel list (a catalog snapshot's list never changes: a new list is a new
 * key, and the old entries go with the old list), per channel-type set (weakly held, by identity: the
 * routes pass constants) or channel filter (likewise), per group and model. Only non-empty answers are kept, so their number is
 * bounded by the catalog's own groups × models, not by the model names clients send; a cap guards the rest.
 */
interface CandidateCache {
  anyType: Map<string, readonly ChannelRecord[]>;
  /** Keyed by the query's type set or its filter (a query with both is not cached). */
  restricted: WeakMap<object, Map<string, readonly ChannelRecord[]>>;
}
const candidatesByList = new WeakMap<readonly ChannelRecord[], CandidateCache>();
const maxCachedPerSet = 4096;

/**
 * Channels that could ever serve this group and model (enabled, listing the model, in the group). The
 * answer for a channel list is computed once: a request would otherwise scan every channel's model list,
 * twice (the envelope's existence check and the failover's choice), per request.
 */
export function candidateChannels(channels: readonly ChannelRecord[], query: CandidateQuery): readonly ChannelRecord[] {
  if (query.pinnedChannelId !== undefined || (query.channelTypes !== undefined && query.channelFilter !== undefined)) return scanCandidates(channels, query);
  let cache = candidatesByList.get(channels);
  if (cache === undefined) {
    cache = { anyType: new Map(), restricted: new WeakMap() };
    candidatesByList.set(channels, cache);
  }
  const restriction = query.channelFilter ?? query.channelTypes;
  let byGroupModel = restriction === undefined ? cache.anyType : cache.restricted.get(restriction);
  if (byGroupModel === undefined) {
    byGroupModel = new Map();
    cache.restricted.set(restriction as object, byGroupModel);
  }
  const key = `${query.group}\u0000${query.model}`;
  const known = byGroupModel.get(key);
  if (known !== undefined) return known;
  const found = scanCandidates(channels, query);
  if (found.length > 0 && byGroupModel.size < maxCachedPerSet) byGroupModel.set(key, Object.freeze(found));
  return found;
}

function scanCandidates(channels: readonly ChannelRecord[], query: CandidateQuery): ChannelRecord[] {
  const servable = (channel: ChannelRecord) =>
    channel.status === 'enabled' &&
    channel.models.includes(query.model) &&
    (query.channelTypes === undefined || query.channelTypes.has(channel.type)) &&
    (query.channelFilter === undefined || query.channelFilter(channel));
  if (query.pinnedChannelId !== undefined) {
    return channels.filter((channel) => channel.id === query.pinnedChannelId && servable(channel) && (query.pinKeepsGroup !== true || channel.groups.includes(query.group)));
  }
  return channels.filter((channel) => servable(channel) && channel.groups.includes(query.group));
}

/**
 * Pure channel choice: highest priority first, weighted random inside one priority, never a channel
 * already tried, cooling-down channels last. `random` returns [0, 1).
 */
export function selectChannel(channels: readonly ChannelRecord[], query: ChannelQuery, random: () => number): ChannelRecord | undefined {
  const open = candidateChannels(channels, query).filter((channel) => !query.excluded.has(channel.id));
  if (query.preferredChannelId !== undefined) {
    const preferred = open.find((channel) => channel.id === query.preferredChannelId);
    if (preferred !== undefined) return preferred;
  }
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
