import type { AuthenticatedCaller } from '../../auth/authenticate-token.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { AssetOwnersRepository } from '../../storage/asset-owners-repository.js';
import { assetIdPattern } from './asset-id.js';
import { collectAssetReferences } from './asset-references.js';

/** Where a task's assets live: the channel, and the key (its account) that made them. */
export interface AssetPin {
  channelId: number;
  keyFingerprint: string;
}

/** More references than any Seedance task takes (it takes up to 9 images, 3 videos and 3 audios). */
const maxReferences = 32;

/**
 * A video task that names assets (`asset://<id>`, asset-references.ts) may use only its caller's: each id
 * must be one the asset routes made for this user (asset_owners), or the task is a 400 before anything is
 * reserved or sent — the upstream account is shared by every caller of the channel, and would take another
 * caller's asset. The task then goes to the channel and key that made them, the only account that knows
 * them: assets of two accounts cannot meet in one task, nor with a key pinned to another channel.
 * Undefined when the body names no asset (no database read).
 */
export async function pinReferencedAssets(owners: AssetOwnersRepository, caller: AuthenticatedCaller, body: unknown): Promise<AssetPin | undefined> {
  const ids = collectAssetReferences(body);
  if (ids.length === 0) return undefined;
  if (ids.length > maxReferences) throw new GatewayError('invalid_request', `A task may reference at most ${maxReferences} assets; this one names ${ids.length}.`);
  let pin: AssetPin | undefined;
  for (const id of ids) {
    const shown = id.slice(0, 128);
    const owner = assetIdPattern.test(id) ? await owners.find(id) : undefined;
    if (owner === undefined || owner.user_id !== caller.user.id) {
      throw new GatewayError('invalid_request', `No asset 'asset://${shown}': a task may reference only assets its user created through POST /api/asset/createMedia.`);
    }
    if (pin === undefined) pin = { channelId: owner.channel_id, keyFingerprint: owner.key_fingerprint };
    else if (pin.channelId !== owner.channel_id || pin.keyFingerprint !== owner.key_fingerprint) {
      throw new GatewayError('invalid_request', `Asset 'asset://${shown}' was made on another upstream account than the task's other assets; one task can use the assets of one account only.`);
    }
  }
  if (pin !== undefined && caller.pinnedChannelId !== undefined && caller.pinnedChannelId !== pin.channelId) {
    throw new GatewayError('invalid_request', `The assets this task references live on channel ${pin.channelId}, not on the channel this key is pinned to.`);
  }
  return pin;
}
