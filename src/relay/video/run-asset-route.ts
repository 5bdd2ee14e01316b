import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { GatewayError } from '../../errors/gateway-error.js';
import type { UpstreamRequest } from '../../providers/upstream-client.js';
import { readUpstreamErrorBody } from '../read-upstream-error.js';
import { redactSecret } from '../redact-secret.js';
import type { RelayServices } from '../relay-services.js';
import { invalidParameter, missingParameter, requireObjectBody } from '../validate-body.js';
import { assetChannels } from './asset-channels.js';

/** The asset kinds Seedance 2 takes as references. */
const assetTypes = new Set(['Image', 'Video', 'Audio']);
/** An upstream asset id (`asset-20260327164915-cj6zh`): bounded, and safe in a query string. */
const assetIdPattern = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
const assetCallTimeoutMs = 60_000;

/** An upstream's answer as relayed: its status and its JSON, the channel's key masked. */
interface AssetAnswer {
  channel: ChannelRecord;
  status: number;
  text: string;
}

/**
 * Spec §4.9 `POST /api/asset/createMedia`: registers an image, video or audio (by URL) as an asset a
 * Seedance 2 task can reference, on the first asset channel that answers (asset-channels.ts). The body
 * (`url`, `name`, `assetType`) is checked and sent as it came; the upstream's answer (Volcengine Ark's
 * `{ResponseMetadata, Result}`) is relayed as it is. An asset id in the answer is remembered with its
 * channel and caller, so `get` asks that channel and no other caller reads it. Free: no quota is taken.
 */
export async function createAsset(services: RelayServices, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const caller = callerOf(request);
  const body = requireObjectBody(request.body);
  for (const field of ['url', 'name']) {
    if (body[field] === undefined) throw missingParameter(field);
    if (typeof body[field] !== 'string' || body[field] === '') throw invalidParameter(field, 'must be a non-empty string');
  }
  if (body.assetType === undefined) throw missingParameter('assetType');
  if (typeof body.assetType !== 'string' || !assetTypes.has(body.assetType)) throw invalidParameter('assetType', "must be one of 'Image', 'Video', 'Audio'");
  const channels = assetChannels(services.catalog.snapshot.channels, caller.group, caller.pinnedChannelId);
  const bytes = request.rawBody ?? JSON.stringify(body);
  const answer = await askInTurn(services, channels, (channel, key) => ({
    url: `${channel.baseUrl}/api/asset/createMedia`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
    body: bytes,
    signal: AbortSignal.timeout(assetCallTimeoutMs),
  }));
  const id = answer.status < 300 ? resultIdOf(answer.text) : undefined;
  if (id !== undefined) services.responses.remember(memoryKey(id), { channelId: answer.channel.id, userId: caller.user.id, contextTokens: 0 });
  await relayAnswer(reply, answer);
}

/**
 * Spec §4.9 `GET /api/asset/get?id=`: an asset's detail and processing status, from the channel that
 * created it when the gateway remembers it (another caller's is a 404, as a missing one is), else from the
 * caller's asset channels in turn until one knows it.
 */
export async function getAsset(services: RelayServices, request: FastifyRequest<{ Querystring: { id?: unknown } }>, reply: FastifyReply): Promise<void> {
  const caller = callerOf(request);
  const id = request.query.id;
  if (id === undefined || id === '') throw missingParameter('id');
  if (typeof id !== 'string' || !assetIdPattern.test(id)) throw invalidParameter('id', 'must be an asset id');
  const known = await services.responses.recall(memoryKey(id));
  if (known !== undefined && known.userId !== caller.user.id) throw new GatewayError('not_found', `No asset '${id}'.`, { param: 'id' });
  const reachable = assetChannels(services.catalog.snapshot.channels, caller.group, caller.pinnedChannelId);
  const channels = known === undefined ? reachable : reachable.filter((channel) => channel.id === known.channelId);
  const answer = await askInTurn(
    services,
    channels,
    (channel, key) => ({
      url: `${channel.baseUrl}/api/asset/get?id=${encodeURIComponent(id)}`,
      method: 'GET',
      headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
      body: undefined,
      signal: AbortSignal.timeout(assetCallTimeoutMs),
    }),
    // An asset another channel holds is unknown here: the next channel is asked.
    404,
  );
  await relayAnswer(reply, answer);
}

function callerOf(request: FastifyRequest): NonNullable<FastifyRequest['caller']> {
  const caller = request.caller;
  if (caller === undefined) throw new Error('the asset routes run after authentication');
  return caller;
}

function memoryKey(id: string): string {
  return `asset:${id}`;
}

/**
 * Asks the channels in turn (at most `retry_times` + 1 of them) with each one's first key, until one gives
 * an answer to relay: a connection failure, a 429, a 5xx, a rejected channel key (401, 403) — and
 * `alsoNext` — move to the next channel. When none answers, the last answer of an HTTP status is relayed
 * (a 401/403 as 502: the client's own key was fine), else a 502; with no channel at all, a 503.
 */
async function askInTurn(services: RelayServices, channels: ChannelRecord[], build: (channel: ChannelRecord, key: string) => UpstreamRequest, alsoNext?: number): Promise<AssetAnswer> {
  if (channels.length === 0) throw new GatewayError('no_available_channel', 'No channel of your group serves Seedance assets.');
  let last: AssetAnswer | undefined;
  let failure = 'no answer';
  for (const channel of channels.slice(0, services.catalog.snapshot.settings.retryTimes + 1)) {
    const key = channel.keys[0];
    if (key === undefined) continue;
    const sent = await services.upstream.send(build(channel, key));
    if (!sent.ok) {
      failure = sent.failure.message;
      continue;
    }
    const { statusCode, body } = sent.response;
    const text = redactSecret((await body.bytes().catch(() => Buffer.alloc(0))).toString('utf8'), key);
    last = { channel, status: statusCode, text };
    const passOn = statusCode === 429 || statusCode >= 500 || statusCode === 401 || statusCode === 403 || statusCode === alsoNext;
    if (!passOn) return last;
  }
  if (last === undefined) throw new GatewayError('upstream_error', `The asset service could not be reached: ${failure}`);
  if (last.status === 401 || last.status === 403) throw new GatewayError('upstream_error', `The asset service refused the channel's credentials: ${readUpstreamErrorBody(last.text, last.status).message}`);
  return last;
}

/** The upstream's answer as it came (status and JSON); a body that is not JSON is a 502. */
async function relayAnswer(reply: FastifyReply, answer: AssetAnswer): Promise<void> {
  try {
    JSON.parse(answer.text);
  } catch {
    throw new GatewayError('upstream_error', `The asset service answered HTTP ${answer.status} without JSON.`);
  }
  await reply.status(answer.status).header('content-type', 'application/json').send(answer.text);
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
