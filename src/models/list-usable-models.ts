import type { AuthenticatedCaller } from '../auth/authenticate-token.js';
import type { ChannelRecord } from '../catalog/catalog-records.js';

export interface UsableModel {
  id: string;
  /** The channel type of the highest-priority channel serving it (OpenAI's `owned_by`). */
  ownedBy: string;
}

/** Pure: exactly the models the caller may use — group × enabled channels × the token's model_limits. */
export function listUsableModels(channels: readonly ChannelRecord[], caller: AuthenticatedCaller): UsableModel[] {
  const owners = new Map<string, { ownedBy: string; priority: number }>();
  for (const channel of channels) {
    if (channel.status !== 'enabled' || !channel.groups.includes(caller.group)) continue;
    if (caller.pinnedChannelId !== undefined && channel.id !== caller.pinnedChannelId) continue;
    for (const model of channel.models) {
      const known = owners.get(model);
      if (known === undefined || channel.priority > known.priority) owners.set(model, { ownedBy: channel.type, priority: channel.priority });
    }
  }
  const limits = caller.token.modelLimits;
  return [...owners.entries()]
    .filter(([model]) => limits === null || limits.includes(model))
    .map(([id, owner]) => ({ id, ownedBy: owner.ownedBy }))
    .sort((left, right) => left.id.localeCompare(right.id));
}
