import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChannelRecord } from '../../catalog/catalog-records.js';
import { describeFailure } from '../../providers/upstream-client.js';
import { resolveModelMapping } from '../../routing/resolve-model-mapping.js';
import type { TasksRepository } from '../../storage/tasks-repository.js';
import { keyFingerprint } from '../../tasks/key-fingerprint.js';
import { presentVideoTask } from '../../tasks/present-video-task.js';
import { generatePublicTaskId } from '../../tasks/public-task-id.js';
import { readOpenaiVideo, storableVideoAnswer } from '../../tasks/read-openai-video.js';
import { videoTaskPrice } from '../../tasks/video-task-price.js';
import { estimatePromptTokens } from '../estimate-prompt-tokens.js';
import { mappingLoopFailure } from '../mapping-loop-failure.js';
import { MultipartBody } from '../multipart-body.js';
import { encodeMultipartForm, readMultipartForm, type MultipartForm } from '../multipart-form.js';
import { failedAttemptFrom } from '../read-upstream-error.js';
import { runRelayEnvelope, type AttemptTools } from '../relay-envelope.js';
import type { RelayServices } from '../relay-services.js';
import type { AttemptOutcome } from '../run-failover.js';
import { requireObjectBody } from '../validate-body.js';
import { sendWholeAnswer } from '../write-to-client.js';
import { readVideoRequest, unifiedToOpenaiVideoBody, type VideoRequest } from './video-request.js';
import { isRecord } from '../../convert/shared/is-record.js';

/** Which submit route: Sora-style `/v1/videos` (JSON or form, relayed as sent) or the unified `/v1/video/generations`. */
export type VideoSubmitRoute = 'videos' | 'generations';

const openaiChannelTypes: ReadonlySet<string> = new Set(['openai']);
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
 * Spec §4.9.1 / §4.9.2: a video task submitted to an OpenAI-style video channel (Sora, and the resellers
 * speaking its API). The task row is written before the upstream call, once the charge is reserved; the
 * upstream's answer goes back with the task's public id in place of the upstream's; the charge (per
 * second of clip, or per task: video-task-price.ts) is settled at once and kept with the task, which the
 * poll loop refunds if the task fails (src/tasks/task-engine.ts). A submit no upstream accepts costs
 * nothing and leaves no task.
 */
export function runVideoSubmit(services: VideoSubmitServices, route: VideoSubmitRoute, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  return services.relay.inFlight.track(() => submitVideo(services, route, request, reply));
}

async function submitVideo(services: VideoSubmitServices, route: VideoSubmitRoute, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { relay, tasks } = services;
  const body: VideoBody =
    request.body instanceof MultipartBody && route === 'videos'
      ? { kind: 'form', body: request.body, form: await readMultipartForm(request.body, checkedFields) }
      : { kind: 'json', body: requireObjectBody(request.body), raw: request.rawBody };
  const fields = body.kind === 'form' ? body.form.fields : body.body;
  const video = readVideoRequest(fields, { multipart: body.kind === 'form', requireModel: route === 'generations' });
  const priced = videoTaskPrice(relay.catalog.snapshot.prices, video.model, video.size, video.seconds);
  const caller = request.caller;
  if (caller === undefined) throw new Error('relay routes run after authentication');

  const publicId = generatePublicTaskId();
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
        channelTypes: openaiChannelTypes,
        logStyle: logStyles[route],
        warnings: [],
      },
      async (channel, key, tools) => {
        const mapping = resolveModelMapping(channel.modelMapping, video.model);
        if (!mapping.ok) return mappingLoopFailure(channel.id, mapping.loop);
        tools.setUpstreamModel(mapping.upstreamModel);
        // Written once, before the first upstream call: from here a crash leaves a row the poll loop refunds.
        taskId ??= await tasks.insert(
          { publicId, kind: 'video', requestId: request.id, userId: caller.user.id, tokenId: caller.token.id, model: video.model, properties: { seconds: video.seconds, ...(video.size === undefined ? {} : { size: video.size }) } },
          relay.now(),
        );
        const outcome = await attemptSubmit(services, { channel, key, tools, taskId, upstreamModel: mapping.upstreamModel, upstream: await buildUpstreamBody(route, body, video, mapping.upstreamModel), reply, request });
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
  upstream: { bytes: string | Buffer; contentType: string };
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * One try: POST `{base}/v1/videos`. A 2xx naming the upstream's task records it on the row (which leaves
 * `not_start`) and answers the client; a 2xx that names no task is a failure like a 502 (nothing to poll,
 * nothing to bill). A task the upstream failed at once is answered as such and costs nothing.
 */
async function attemptSubmit(services: VideoSubmitServices, attempt: SubmitAttempt): Promise<AttemptOutcome<{ status: number }>> {
  const { relay, tasks } = services;
  const { channel, key, tools } = attempt;
  const sent = await relay.upstream.send({
    url: `${channel.baseUrl}/v1/videos`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': attempt.upstream.contentType, accept: 'application/json' },
    body: attempt.upstream.bytes,
    signal: tools.signal,
  });
  if (!sent.ok) return { kind: 'failed', failure: sent.failure };
  const { response } = sent;
  const status = response.statusCode;
  if (status >= 400) return failedAttemptFrom(response, key);
  let bytes: Buffer;
  try {
    bytes = await response.body.bytes();
  } catch (error) {
    // Whatever cut the read (the upstream, or a client that left), no task was recorded and the client has
    // no id to fetch one by: a failure, not charged (readFailureOutcome's "client left → served" is for streams).
    return { kind: 'failed', failure: describeFailure(error) };
  }
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    json = undefined;
  }
  const seen = readOpenaiVideo(json);
  if (seen === undefined || seen.upstreamId === undefined || !isRecord(json)) {
    return { kind: 'failed', failure: { kind: 'status', status: 502, message: 'The upstream accepted the video task but its answer names no task (no id and status).' } };
  }
  const now = relay.now();
  const failedAtOnce = seen.status === 'failure';
  const recorded = await tasks.markSubmitted(
    attempt.taskId,
    {
      channelId: channel.id,
      keyFingerprint: keyFingerprint(key),
      upstreamModel: attempt.upstreamModel,
      upstreamId: seen.upstreamId,
      status: seen.status,
      progress: seen.progress ?? 0,
      result: storableVideoAnswer(json),
      nextPollAt: now + services.pollIntervalMs,
      ...(failedAtOnce ? { failReason: seen.failReason ?? 'The upstream refused the task.', nothingCharged: true } : {}),
    },
    now,
  );
  if (!recorded) return { kind: 'failed', failure: { kind: 'status', status: 502, message: 'The task was given up before its upstream answered.' } };
  // A task failed at submit produced nothing: it is not charged (and so has nothing to refund).
  if (failedAtOnce) tools.meter.deliveredCalls = 0;
  tools.meter.firstTokenAt = now;
  tools.meter.committed = true;
  const task = await tasks.findById(attempt.taskId);
  const answer = task === undefined ? json : presentVideoTask(task, contentUrlFor(attempt.request, task.public_id));
  sendWholeAnswer(attempt.reply, status, tools.clientHeaders(channel), 'application/json', JSON.stringify(answer));
  return { kind: 'served', value: { status }, status };
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
