import type { FastifyReply, FastifyRequest } from 'fastify';
import { tokenAllowsModel } from '../../auth/authorize-model.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { AssetOwnersRepository } from '../../storage/asset-owners-repository.js';
import { keyByFingerprint } from '../../tasks/key-fingerprint.js';
import type { RelayServices } from '../relay-services.js';
import { invalidParameter, missingParameter } from '../validate-body.js';
import { assetChannels } from './asset-channels.js';
import { askAssetChannels } from './ask-asset-channels.js';
import { assetIdPattern } from './asset-id.js';
import { runAssetRequest } from './run-asset-request.js';

/**
 * Spec §4.9 `GET /api/asset/get?id=`: an asset's detail and processing status, asked of the channel that
 * created it with the key that did. Only its maker may ask: every caller of a group shares the channel's
 * upstream account, so an asset the gateway did not create for this caller (another's, or one whose create
 * answered no id) is a 404 without an upstream call. The channel must still be one the caller can reach
 * (else 503). Counted against the caller's request rate limits (before the lookup) and logged
 * (run-asset-request.ts).
 */
export async function getAsset(services: RelayServices, owners: AssetOwnersRepository, request: FastifyRequest<{ Querystring: { id?: unknown } }>, reply: FastifyReply): Promise<void> {
  const id = request.query.id;
  if (id === undefined || id === '') throw missingParameter('id');
  if (typeof id !== 'string' || !assetIdPattern.test(id)) throw invalidParameter('id', 'must be an asset id');
  await runAssetRequest(services, request, reply, async (caller) => {
    const owner = await owners.find(id);
    if (owner === undefined || owner.user_id !== caller.user.id) throw new GatewayError('not_found', `No asset '${id}'.`, { param: 'id' });
    const holder = assetChannels(services.catalog.snapshot.channels, { group: caller.group, pinnedChannelId: caller.pinnedChannelId, allowsModel: (model) => tokenAllowsModel(caller, model) }).filter((channel) => channel.id === owner.channel_id);
    return askAssetChannels(
      services,
      holder,
      (channel) => keyByFingerprint(channel.keys, owner.key_fingerprint),
      (channel, key, signal) => ({
        url: `${channel.baseUrl}/api/asset/get?id=${encodeURIComponent(id)}`,
        method: 'GET',
        headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
        body: undefined,
        signal,
      }),
    );
  });
}
