import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { isRecord } from '../../convert/shared/is-record.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { resolveModelMapping } from '../../routing/resolve-model-mapping.js';
import type { TasksRepository } from '../../storage/tasks-repository.js';
import { keyFingerprint } from '../../tasks/key-fingerprint.js';
import { presentVideoTask } from '../../tasks/present-video-task.js';
import { generatePublicTaskId } from '../../tasks/public-task-id.js';
import { videoTaskPrice } from '../../tasks/video-task-price.js';
import { estimatePromptTokens } from '../estimate-prompt-tokens.js';
import { mappingLoopFailure } from '../mapping-loop-failure.js';
import { MultipartBody } from '../multipart-body.js';
import { encodeMultipartForm, readMultipartForm, type MultipartForm } from '../multipart-form.js';
import { runRelayEnvelope, type AttemptTools } from '../relay-envelope.js';
import type { RelayServices } from '../relay-services.js';
import type { AttemptOutcome } from '../run-failover.js';
import { requireObjectBody } from '../validate-body.js';
import { sendWholeAnswer } from '../write-to-client.js';
import { sendOpenaiVideoSubmit } from './send-openai-video-submit.js';
import { sendVodVideoSubmit } from './send-vod-video-submit.js';
import { readVideoRequest, unifiedToOpenaiVideoBody, type VideoRequest } from './video-request.js';
import type { VideoSubmitOutcome } from './video-submit-outcome.js';

/** Which submit route: Sora-style `/v1/videos` (JSON or form, relayed as sent) or the unified `/v1/video/generations`. */
export type VideoSubmitRoute = 'videos' | 'generations';

const videoChannelTypes: ReadonlySet<string> = new Set(['openai', 'tencent-vod']);
const logStyles: Record<VideoSubmitRoute, string> = { videos: 'openai-videos', generations: 'video-generations' };
/** Form fields that decide the price or the routing: each may be given once. */
const checkedFields = new Set(['model', 'prompt', 'seconds', 'duration', 'size']);

type VideoBody = { kind: 'json'; body: Record<string, unknown>; raw: Buffer | undefined } | { kind: 'form'; body: MultipartBody; form: MultipartForm };

export interface VideoSubmitServices {
  relay: RelayServices;
  tasks: TasksRepository;
  /** Between two polls of a task (the first comes this long after the submit). */
  pollIntervalMs: number;
}

/**
 * Spec §4.9.1 / §4.9.2 / §4.9.5: a video task submitted to an OpenAI-style video channel (Sora, and the
 * resellers speaking its API) or to Tencent VOD's AIGC video (the domestic channel). The task row is written before the upstream call, once the charge is reserved; the
 * upstream's answer goes back with the task's public id in place of the upstream's; the charge (per
 * second of clip, or per task: video-task-price.ts) is settled at once and kept with the task, which the
 * poll loop refunds if the task fails (src/tasks/task-engine.ts). A submit no upstream accepts costs
 * nothing and leaves no task.
 */
export function runVideoSubmit(services: VideoSubmitServices, route: VideoSubmitRoute, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  return services.relay.inFlight.track(() => submitVideo(services, route, request, reply));
}

async function submitVideo(services: VideoSubmitServices, route: VideoSubmitRoute, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const body: VideoBody =
    request.body instanceof MultipartBody && route === 'videos'
      ? { kind: 'form', body: request.body, form: await readMultipartForm(request.body, checkedFields) }
      : { kind: 'json', body: requireObjectBody(request.body), raw: request.rawBody };
  const fields = body.kind === 'form' ? body.form.fields : body.body;
  const video = readVideoRequest(fields, { multipart: body.kind === 'form', requireModel: route === 'generations' });
  await runVideoTask(services, request, reply, {
    video,
    logStyle: logStyles[route],
    properties: {},
    send: (channel, key, upstreamModel, signal, publicId) =>
      channel.type === 'tencent-vod'
        ? sendVodVideoSubmit(services.relay, channel, key, { fields: vodFields(body), prompt: video.prompt, seconds: video.seconds, size: video.size, upstreamModel, sessionId: publicId }, signal)
        : buildUpstreamBody(route, body, video, upstreamModel).then((upstream) => sendOpenaiVideoSubmit(services.relay, channel, key, upstream, signal)),
  });
}

/** A video task about to be created: what it is, how it is priced and logged, and how one channel is asked. */
export interface VideoTaskPlan {
  video: VideoRequest;
  logStyle: string;
  /** Kept on the row with the length and size (a remix's origin). */
  properties: Record<string, unknown>;
  /** The channel that must serve it (a remix: its video's), when not any. */
  pinnedChannelId?: number;
  /** The key to use on that channel (a remix: the one that made its video), when not the rotation's. */
  keyFor?: (channel: ChannelRecord) => string | undefined;
  send(channel: ChannelRecord, key: string, upstreamModel: string, signal: AttemptTools['signal'], publicId: string): Promise<VideoSubmitOutcome>;
}

/**
 * Creates one video task through the relay envelope: price (video-task-price.ts) → reserve → a row in
 * `not_start` before the first upstream call → failover over the plan's channels → the accepted task
 * recorded and answered → the charge settled and kept on the row. A task no upstream accepted is deleted
 * (nothing was charged).
 */
export async function runVideoTask(services: VideoSubmitServices, request: FastifyRequest, reply: FastifyReply, plan: VideoTaskPlan): Promise<void> {
  const { relay, tasks } = services;
  const { video } = plan;
  const priced = videoTaskPrice(relay.catalog.snapshot.prices, video.model, video.size, video.billedSeconds);
  const caller = request.caller;
  if (caller === undefined) throw new Error('relay routes run after authentication');

  const publicId = generatePublicTaskId();
  const properties = { ...plan.properties, seconds: video.seconds, ...(video.size === undefined ? {} : { size: video.size }) };
  let taskId: number | undefined;
  let submitted = false;
  try {
    const charged = await runRelayEnvelope(
      relay,
      request,
      reply,
      {
        model: video.model,
        stream: false,
        ...estimatePromptTokens({ texts: [video.prompt], extraTokens: 0 }),
        maxOutputTokens: 0,
        calls: priced?.calls ?? 1,
        price: priced?.price,
        channelTypes: videoChannelTypes,
        ...(plan.pinnedChannelId === undefined ? {} : { pinnedChannelId: plan.pinnedChannelId }),
        logStyle: plan.logStyle,
        warnings: [],
      },
      async (channel, rotatedKey, tools) => {
        const mapping = resolveModelMapping(channel.modelMapping, video.model);
        if (!mapping.ok) return mappingLoopFailure(channel.id, mapping.loop);
        const key = plan.keyFor?.(channel) ?? rotatedKey;
        tools.setUpstreamModel(mapping.upstreamModel);
        // Written once, before the first upstream call: from here a crash leaves a row the poll loop refunds.
        taskId ??= await tasks.insert({ publicId, kind: 'video', requestId: request.id, userId: caller.user.id, tokenId: caller.token.id, model: video.model, properties }, relay.now());
        const send = () => plan.send(channel, key, mapping.upstreamModel, tools.signal, publicId);
        const outcome = await attemptSubmit(services, { channel, key, tools, taskId, upstreamModel: mapping.upstreamModel, reply, request }, send);
        if (outcome.kind === 'served') submitted = true;
        return outcome;
      },
      (_channel, json) => isRecord(json) && isRecord(json.error),
    );
    if (submitted && taskId !== undefined) await tasks.recordCharge(taskId, charged);
  } finally {
    if (!submitted && taskId !== undefined) await tasks.discardUnsubmitted(taskId);
  }
}

interface SubmitAttempt {
  channel: ChannelRecord;
  key: string;
  tools: AttemptTools;
  taskId: number;
  upstreamModel: string;
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * One try on one channel, in its protocol. An accepted task is recorded on the row (which leaves
 * `not_start`) and answered; a task the upstream failed at once is answered as such and costs nothing.
 */
async function attemptSubmit(services: VideoSubmitServices, attempt: SubmitAttempt, send: () => Promise<VideoSubmitOutcome>): Promise<AttemptOutcome<{ status: number }>> {
  const { relay, tasks } = services;
  const { channel, key, tools } = attempt;
  const accepted = await send();
  if (accepted.kind === 'failed') return accepted;
  const now = relay.now();
  const failedAtOnce = accepted.status === 'failure';
  const recorded = await tasks.markSubmitted(
    attempt.taskId,
    {
      channelId: channel.id,
      keyFingerprint: keyFingerprint(key),
      upstreamModel: attempt.upstreamModel,
      upstreamId: accepted.upstreamId,
      status: accepted.status,
      progress: accepted.progress,
      result: accepted.result,
      nextPollAt: now + services.pollIntervalMs,
      ...(failedAtOnce ? { failReason: accepted.failReason ?? 'The upstream refused the task.', nothingCharged: true } : {}),
    },
    now,
  );
  if (!recorded) return { kind: 'failed', failure: { kind: 'status', status: 502, message: 'The task was given up before its upstream answered.' } };
  // A task failed at submit produced nothing: it is not charged (and so has nothing to refund).
  if (failedAtOnce) tools.meter.deliveredCalls = 0;
  tools.meter.firstTokenAt = now;
  tools.meter.committed = true;
  const task = await tasks.findById(attempt.taskId);
  if (task === undefined) throw new Error(`task ${attempt.taskId} vanished while it was submitted`);
  const answer = presentVideoTask(task, contentUrlFor(attempt.request, task.public_id));
  sendWholeAnswer(attempt.reply, accepted.httpStatus, tools.clientHeaders(channel), 'application/json', JSON.stringify(answer));
  return { kind: 'served', value: { status: accepted.httpStatus }, status: accepted.httpStatus };
}

/** Where a completed video is fetched through this gateway: its content route, on the host the client called. */
export function contentUrlFor(request: FastifyRequest, publicId: string): string {
  return `${request.protocol}://${request.host}/v1/videos/${publicId}/content`;
}

/** The bytes sent upstream: the client's own unless the model is mapped or `seconds` is rewritten. */
async function buildUpstreamBody(route: VideoSubmitRoute, body: VideoBody, video: VideoRequest, upstreamModel: string): Promise<{ bytes: string | Buffer; contentType: string }> {
  if (route === 'generations' && body.kind === 'json') return { bytes: JSON.stringify(unifiedToOpenaiVideoBody(body.body, video, upstreamModel)), contentType: 'application/json' };
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

/** A VOD task is built from fields: a form's text parts, or the JSON body. Files cannot travel to VOD (it takes URLs). */
function vodFields(body: VideoBody): Readonly<Record<string, unknown>> {
  if (body.kind === 'json') return body.body;
  for (const [name, value] of body.form.form.entries()) {
    if (typeof value !== 'string') throw new GatewayError('invalid_request', `Invalid '${name}': a Tencent VOD channel takes files by URL; upload the file first (POST /api/upload/presign) and send its public_url.`, { param: name });
  }
  return body.form.fields;
}
