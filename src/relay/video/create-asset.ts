import type { FastifyReply, FastifyRequest } from 'fastify';
import { tokenAllowsModel } from '../../auth/authorize-model.js';
import type { AssetOwnersRepository } from '../../storage/asset-owners-repository.js';
import { keyFingerprint } from '../../tasks/key-fingerprint.js';
import type { RelayServices } from '../relay-services.js';
import { invalidParameter, missingParameter, requireObjectBody } from '../validate-body.js';
import { assetChannels } from './asset-channels.js';
import { askAssetChannels } from './ask-asset-channels.js';
import { assetIdPattern } from './asset-id.js';
import { recordAssetOwner } from './record-asset-owner.js';
import { runAssetRequest } from './run-asset-request.js';

/** The asset kinds Seedance 2 takes as references. */
const assetTypes = new Set(['Image', 'Video', 'Audio']);

/**
 * Spec §4.9 `POST /api/asset/createMedia`: registers an image, video or audio (by URL) as an asset a
 * Seedance 2 task can reference, on the first of the caller's asset channels that answers
 * (asset-channels.ts). The body (`url`, `name`, `assetType`) is checked and sent as it came, with the
 * channel's first key; the upstream's answer (Volcengine Ark's `{ResponseMetadata, Result}`) is relayed as
 * it is. The asset id it names is recorded with its maker, channel and key, so that `get` answers its maker
 * alone, from there (record-asset-owner.ts: a failed write is tried again, one given up is reported). Free:
 * no quota is taken, but it counts against the caller's request rate limits and is logged
 * (run-asset-request.ts).
 */
export async function createAsset(services: RelayServices, owners: AssetOwnersRepository, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const body = requireObjectBody(request.body);
  for (const field of ['url', 'name']) {
    if (body[field] === undefined) throw missingParameter(field);
    if (typeof body[field] !== 'string' || body[field] === '') throw invalidParameter(field, 'must be a non-empty string');
  }
  if (body.assetType === undefined) throw missingParameter('assetType');
  if (typeof body.assetType !== 'string' || !assetTypes.has(body.assetType)) throw invalidParameter('assetType', "must be one of 'Image', 'Video', 'Audio'");
  const bytes = request.rawBody ?? JSON.stringify(body);
  await runAssetRequest(services, request, reply, async (caller) => {
    const answer = await askAssetChannels(
      services,
      assetChannels(services.catalog.snapshot.channels, { group: caller.group, pinnedChannelId: caller.pinnedChannelId, allowsModel: (model) => tokenAllowsModel(caller, model) }),
      (channel) => channel.keys[0],
      (channel, key, signal) => ({
        url: `${channel.baseUrl}/api/asset/createMedia`,
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
        body: bytes,
        signal,
      }),
    );
    const id = answer.status < 300 ? resultIdOf(answer.text) : undefined;
    if (id !== undefined) await recordAssetOwner(owners, { asset_id: id, user_id: caller.user.id, channel_id: answer.channel.id, key_fingerprint: keyFingerprint(answer.key), created_at: services.now() }, services.report);
    return answer;
  });
}

/** Volcengine Ark's asset id (`Result.Id`), when the answer has one. */
function resultIdOf(text: string): string | undefined {
  try {
    const result = (JSON.parse(text) as { Result?: { Id?: unknown } } | null)?.Result;
    const id = result !== null && typeof result === 'object' ? result.Id : undefined;
    return typeof id === 'string' && assetIdPattern.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}
