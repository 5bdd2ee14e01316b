import type { AuthenticatedCaller } from '../auth/authenticate-token.js';
import { isPriced } from '../billing/compute-charge.js';
import type { ChannelRecord, PriceRecord } from '../catalog/catalog-records.js';

export interface UsableModel {
  id: string;
  /** The channel type of the highest-priority channel serving it (OpenAI's `owned_by`). */
  ownedBy: string;
  /** The types of every channel serving it to the caller, sorted: what routes can reach it (Gemini's embedding actions need a Gemini channel). */
  channelTypes: string[];
}

/** What the relay's admission checks of a model's price (admit-request.ts): the list applies the same rule. */
export interface ModelPricing {
  prices: ReadonlyMap<string, PriceRecord>;
  allowUnpricedModels: boolean;
}

/**
 * Pure: exactly the models the caller may use (spec §4.2) — group (or the pinned channel) × enabled channels × the token's
 * model_limits × priced (a model without a price is refused with 400 price_not_configured unless
 * `allow_unpriced_models` is on, so it is not listed either).
 */
export function listUsableModels(channels: readonly ChannelRecord[], caller: AuthenticatedCaller, pricing: ModelPricing): UsableModel[] {
  const owners = new Map<string, { ownedBy: string; priority: number; types: Set<string> }>();
  for (const channel of channels) {
    if (channel.status !== 'enabled') continue;
    // A pinned key (`sk-…-<channel id>`) reaches its channel whatever its groups, as routing does (select-channel.ts).
    if (caller.pinnedChannelId !== undefined ? channel.id !== caller.pinnedChannelId : !channel.groups.includes(caller.group)) continue;
    for (const model of channel.models) {
      const known = owners.get(model);
      if (known === undefined) owners.set(model, { ownedBy: channel.type, priority: channel.priority, types: new Set([channel.type]) });
      else {
        known.types.add(channel.type);
        if (channel.priority > known.priority) Object.assign(known, { ownedBy: channel.type, priority: channel.priority });
      }
    }
  }
  const limits = caller.token.modelLimits;
  return [...owners.entries()]
    .filter(([model]) => limits === null || limits.includes(model))
    .filter(([model]) => pricing.allowUnpricedModels || isListedPrice(pricing.prices.get(model)))
    .map(([id, owner]) => ({ id, ownedBy: owner.ownedBy, channelTypes: [...owner.types].sort() }))
    .sort((left, right) => left.id.localeCompare(right.id));
}

/** A price a request can be billed at: per token or per call, or per second (video models, video-task-price.ts). */
function isListedPrice(price: PriceRecord | undefined): boolean {
  return isPriced(price) || price?.perSecond !== undefined;
}
