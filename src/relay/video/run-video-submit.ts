import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { isRecord } from '../../convert/shared/is-record.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { resolveModelMapping } from '../../routing/resolve-model-mapping.js';
import { candidateChannels } from '../../routing/select-channel.js';
import { presentVideoTask } from '../../tasks/present-video-task.js';
import { videoTaskPrice } from '../../tasks/video-task-price.js';
import type { AuthenticatedCaller } from '../../auth/authenticate-token.js';
import type { AssetOwnersRepository } from '../../storage/asset-owners-repository.js';
import { keyByFingerprint } from '../../tasks/key-fingerprint.js';
import { MultipartBody } from '../multipart-body.js';
import { encodeMultipartForm, readMultipartForm, type MultipartForm } from '../multipart-form.js';
import { runTaskSubmit, type TaskSubmitPlan, type TaskSubmitServices } from '../task-submit/run-task-submit.js';
import { invalidParameter, missingParameter, requireObjectBody } from '../validate-body.js';
import { sendKlingVideoSubmit } from './send-kling-video-submit.js';
import { sendOpenaiVideoSubmit } from './send-openai-video-submit.js';
import { pinReferencedAssets } from './pin-referenced-assets.js';
import { sendVodVideoSubmit } from './send-vod-video-submit.js';
import { fixedVideoSeconds, readVideoRequest, unifiedToOpenaiVideoBody, type VideoRequest } from './video-request.js';

/**
 * Which submit route: Sora-style `/v1/videos` (JSON or form, relayed as sent), the unified
 * `/v1/video/generations`, or Kling's native `/kling/v1/videos/{text2video|image2video}`.
 */
/** `kling-image2video` is Kling's native image2video route, which needs an image; `kling` its text2video. */
export type VideoSubmitRoute = 'videos' | 'generations' | 'kling' | 'kling-image2video';

const videoChannelTypes: ReadonlySet<string> = new Set(['openai', 'tencent-vod', 'kling']);
const logStyles: Record<VideoSubmitRoute, string> = { videos: 'openai-videos', generations: 'video-generations', kling: 'kling-videos', 'kling-image2video': 'kling-videos' };
/** Form fields that decide the price or the routing: each may be given once. */
const checkedFields = new Set(['model', 'prompt', 'seconds', 'duration', 'size']);

type VideoBody = { kind: 'json'; body: Record<string, unknown>; raw: Buffer | undefined } | { kind: 'form'; body: MultipartBody; form: MultipartForm };

/**
 * Spec §4.9.1 / §4.9.2 / §4.9.5: a video task submitted to an OpenAI-style video channel (Sora, and the
 * resellers speaking its API) or to Tencent VOD's AIGC video (the domestic channel), through the task
 * runner (task-submit/run-task-submit.ts). The client sees the task's public id, never the upstream's;
 * the charge (per second of clip, or per task: video-task-price.ts) is settled at once, and refunded by
 * the poll loop if the task fails.
 */
export function runVideoSubmit(services: TaskSubmitServices, assetOwners: AssetOwnersRepository, route: VideoSubmitRoute, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  return services.relay.inFlight.track(() => submitVideo(services, assetOwners, route, request, reply));
}

async function submitVideo(services: TaskSubmitServices, assetOwners: AssetOwnersRepository, route: VideoSubmitRoute, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const caller = request.caller;
  if (caller === undefined) throw new Error('video routes run after authentication');
  const body: VideoBody =
    request.body instanceof MultipartBody && route === 'videos'
      ? { kind: 'form', body: request.body, form: await readMultipartForm(request.body, checkedFields) }
      : route === 'kling' || route === 'kling-image2video'
        ? { kind: 'json', body: klingNativeToUnified(requireObjectBody(request.body), route === 'kling-image2video'), raw: undefined }
        : { kind: 'json', body: requireObjectBody(request.body), raw: request.rawBody };
  const fields = body.kind === 'form' ? body.form.fields : body.body;
  // Assets named by `asset://<id>` must be the caller's, and the task goes where they live.
  const assets = await pinReferencedAssets(assetOwners, caller, fields);
  const routes = vodRoutesOf(reachableChannels(services, caller, fields.model, assets?.channelId));
  const video = readVideoRequest(fields, { multipart: body.kind === 'form', requireModel: route !== 'videos', ...routes });
  await runTaskSubmit(services, request, reply, {
    ...videoTaskPlan(services, request, video),
    ...(assets === undefined ? {} : { pinnedChannelId: assets.channelId, keyFor: (channel: ChannelRecord) => keyByFingerprint(channel.keys, assets.keyFingerprint) }),
    logStyle: logStyles[route],
    properties: videoProperties(video, {}),
    send: (channel, key, upstreamModel, call, publicId) => {
      if (channel.type === 'tencent-vod') {
        return sendVodVideoSubmit(services.relay, channel, key, { fields: jsonFields(body, 'Tencent VOD'), prompt: video.prompt, seconds: video.seconds, size: video.size, clientModel: video.model, upstreamModel, sessionId: publicId }, call);
      }
      if (channel.type === 'kling') return sendKlingVideoSubmit(services.relay, channel, key, { fields: jsonFields(body, 'Kling'), prompt: video.prompt, seconds: video.seconds, size: video.size, upstreamModel }, call);
      return buildUpstreamBody(route, body, video, upstreamModel).then((upstream) => sendOpenaiVideoSubmit(services.relay, channel, key, upstream, call));
    },
  });
}

/** What every video task's plan shares: its kind, model, price (by length and size), channels and answer. */
export function videoTaskPlan(services: TaskSubmitServices, request: FastifyRequest, video: VideoRequest): Pick<TaskSubmitPlan, 'kind' | 'model' | 'prompt' | 'price' | 'channelTypes' | 'answer' | 'errorPassthrough'> {
  return {
    kind: 'video',
    model: video.model,
    prompt: video.prompt,
    price: videoTaskPrice(services.relay.catalog.snapshot.prices, video.model, video.priceNames, video.billedSeconds),
    channelTypes: videoChannelTypes,
    answer: (task) => presentVideoTask(task, contentUrlFor(request, task.public_id)),
    errorPassthrough: (_channel, json) => isRecord(json) && isRecord(json.error),
  };
}

/**
 * A video task's row properties: the length and size asked for, what it was priced by (the price names and
 * the seconds billed, which a remix reuses: they depend on the request's metadata and on the channels
 * reachable at submit, neither of which the remix has), and `extra`.
 */
export function videoProperties(video: VideoRequest, extra: Record<string, unknown>): Record<string, unknown> {
  return { ...extra, seconds: video.seconds, ...(video.size === undefined ? {} : { size: video.size }), price_names: video.priceNames, billed_seconds: video.billedSeconds };
}

/** Where a completed video is fetched through this gateway: its content route, on the host the client called. */
export function contentUrlFor(request: FastifyRequest, publicId: string): string {
  return `${request.protocol}://${request.host}/v1/videos/${publicId}/content`;
}

/** The bytes sent upstream: the client's own unless the model is mapped or `seconds` is rewritten. */
async function buildUpstreamBody(route: VideoSubmitRoute, body: VideoBody, video: VideoRequest, upstreamModel: string): Promise<{ bytes: string | Buffer; contentType: string }> {
  if (route !== 'videos' && body.kind === 'json') return { bytes: JSON.stringify(unifiedToOpenaiVideoBody(body.body, video, upstreamModel)), contentType: 'application/json' };
  const changes: Record<string, string> = Object.assign({}, video.rewrites);
  const sentModel = body.kind === 'form' ? body.form.fields.model : body.body.model;
  if (upstreamModel !== sentModel) changes.model = upstreamModel;
  if (body.kind === 'form') return encodeMultipartForm(body.body, body.form.form, changes);
  // `duration` was read as the length and is sent as `seconds`: an OpenAI upstream does not know it.
  const unchanged = Object.keys(changes).length === 0;
  const json = unchanged ? undefined : Object.assign({}, body.body, changes);
  if (json !== undefined && 'seconds' in changes) delete json.duration;
  return { bytes: unchanged && body.raw !== undefined ? body.raw : JSON.stringify(json ?? body.body), contentType: 'application/json' };
}

/**
 * A VOD or Kling task is built from fields: a form's text parts, or the JSON body. Files cannot travel to
 * them (they take URLs).
 */
function jsonFields(body: VideoBody, vendor: string): Readonly<Record<string, unknown>> {
  if (body.kind === 'json') return body.body;
  for (const [name, value] of body.form.form.entries()) {
    if (typeof value !== 'string') throw new GatewayError('invalid_request', `Invalid '${name}': a ${vendor} channel takes files by URL; upload the file first (POST /api/upload/presign) and send its public_url.`, { param: name });
  }
  return body.form.fields;
}

/**
 * The video channels routing could choose for this caller and model (enabled, in the caller's group, or
 * its key's pinned channel): only those decide the clip's length and price. A channel of another group, or
 * a disabled one, mapping the model to a 15 s model made a 4 s clip billed and sent as 15 s.
 */
function reachableChannels(services: TaskSubmitServices, caller: AuthenticatedCaller, model: unknown, assetChannelId: number | undefined): { model: string; channels: readonly ChannelRecord[] } | undefined {
  if (typeof model !== 'string') return undefined;
  const pin = assetChannelId === undefined ? { pinnedChannelId: caller.pinnedChannelId } : { pinnedChannelId: assetChannelId, pinKeepsGroup: true };
  const query = { group: caller.group, model, ...pin, channelTypes: videoChannelTypes };
  return { model, channels: candidateChannels(services.relay.catalog.snapshot.channels, query) };
}

/**
 * How the channels that can serve the model reach VOD: whether any is a `tencent-vod` channel (the model
 * then takes the domestic channel's tiers and default length), and whether any maps it to a lip-sync model
 * (billed at least 5 s), and the longest fixed length a channel maps it to (a `grok-video-3-max`) — so the
 * price reserved is the price of what the chosen channel will make.
 */
function vodRoutesOf(reachable: { model: string; channels: readonly ChannelRecord[] } | undefined): { servedByVod: boolean; mapsToLipSync: boolean; mappedFixedSeconds: number | undefined } {
  let servedByVod = false;
  let mapsToLipSync = false;
  let mappedFixedSeconds: number | undefined;
  if (reachable === undefined) return { servedByVod, mapsToLipSync, mappedFixedSeconds };
  const { model, channels } = reachable;
  for (const channel of channels) {
    const mapping = resolveModelMapping(channel.modelMapping, model);
    const fixed = mapping.ok ? fixedVideoSeconds(mapping.upstreamModel) : undefined;
    if (fixed !== undefined) mappedFixedSeconds = Math.max(fixed, mappedFixedSeconds ?? 0);
    if (channel.type !== 'tencent-vod') continue;
    servedByVod = true;
    if (mapping.ok && /identify-face/i.test(mapping.upstreamModel)) mapsToLipSync = true;
  }
  return { servedByVod, mapsToLipSync, mappedFixedSeconds };
}

/**
 * Kling's native body as the unified one (new-api's KlingRequestConvert, protocols.md §3.1): `model_name`
 * (or `model`) as the model, the prompt, the image, and the whole native body as `metadata`, which a
 * Kling channel sends on (its own field names) and other channels read what they know from.
 */
function klingNativeToUnified(native: Record<string, unknown>, needsImage: boolean): Record<string, unknown> {
  // Without its image an image2video would be made (and charged) as a text2video nobody asked for.
  if (needsImage && (native.image === undefined || native.image === null)) throw missingParameter('image');
  if (needsImage && (typeof native.image !== 'string' || native.image === '')) throw invalidParameter('image', 'Expected a non-empty string (an image URL or its Base64).');
  const unified: Record<string, unknown> = { model: native.model_name ?? native.model, prompt: native.prompt, metadata: native };
  if (native.image !== undefined) unified.image = native.image;
  if (native.duration !== undefined) unified.duration = native.duration;
  return unified;
}
