import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors/gateway-error.js';
import type { TaskRow } from '../../storage/tasks-repository.js';
import { keyByFingerprint } from '../../tasks/key-fingerprint.js';
import { readVideoTaskProperties, type VideoTaskProperties } from '../../tasks/present-video-task.js';
import { invalidParameter, missingParameter, requireObjectBody } from '../validate-body.js';
import { runTaskSubmit, type TaskSubmitServices } from '../task-submit/run-task-submit.js';
import { videoProperties, videoTaskPlan } from './run-video-submit.js';
import { sendOpenaiVideoSubmit } from './send-openai-video-submit.js';
import { isDomesticVideoModel, priceNamesOf, type VideoRequest } from './video-request.js';

/**
 * `POST /v1/videos/{id}/remix` (OpenAI's Videos API, protocols.md §4): a new task from a completed video of
 * the caller's and a new prompt. It goes to the channel and key that made the video (the upstream knows
 * the video only there), is priced as its origin (model, length, size), and is a task like any other
 * (charged at submit, refunded if it fails). Only videos made by OpenAI-style channels can be remixed.
 */
export function runVideoRemix(services: TaskSubmitServices, origin: TaskRow, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  return services.relay.inFlight.track(() => remixVideo(services, origin, request, reply));
}

async function remixVideo(services: TaskSubmitServices, origin: TaskRow, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const body = requireObjectBody(request.body);
  const prompt = body.prompt;
  if (prompt === undefined || prompt === null) throw missingParameter('prompt');
  if (typeof prompt !== 'string' || prompt.trim() === '') throw invalidParameter('prompt', 'must be a non-empty string');
  if (origin.status !== 'success') throw new GatewayError('invalid_request', `Video ${origin.public_id} is not completed yet, current status: ${origin.status}; only a completed video can be remixed.`);
  const channel = services.relay.catalog.snapshot.channels.find((candidate) => candidate.id === origin.channel_id);
  if (channel === undefined || origin.upstream_id === null) throw new GatewayError('upstream_error', `The channel that made video ${origin.public_id} is gone; it cannot be remixed.`);
  if (channel.type !== 'openai') throw new GatewayError('invalid_request', `Video ${origin.public_id} was made by a ${channel.type} channel, which has no remix.`);
  const upstreamId = origin.upstream_id;
  const video = remixVideoRequest(origin.model, readVideoTaskProperties(origin.properties), prompt);
  await runTaskSubmit(services, request, reply, {
    ...videoTaskPlan(services, request, video),
    logStyle: 'openai-video-remix',
    properties: videoProperties(video, { remixed_from: origin.public_id }),
    pinnedChannelId: channel.id,
    keyFor: (candidate) => keyByFingerprint(candidate.keys, origin.key_fingerprint),
    send: (candidate, key, _upstreamModel, call) =>
      sendOpenaiVideoSubmit(services.relay, candidate, key, { bytes: JSON.stringify({ prompt }), contentType: 'application/json' }, call, `/v1/videos/${encodeURIComponent(upstreamId)}/remix`),
  });
}

/**
 * Pure: a remix as a video request priced as its origin was — the price names and billed seconds stored
 * with it at submit (a tier such as `Kling-2.6@720p`, a combined `…-1080p-audio`, `@pro` from its metadata;
 * a lip-sync clip under 5 s billed as 5). A row stored before those were kept is priced from its model and
 * size alone, by the same rule (the tier, for a model of the domestic families).
 */
export function remixVideoRequest(model: string, origin: VideoTaskProperties, prompt: string): VideoRequest {
  const { seconds, size } = origin;
  const priceNames = origin.priceNames ?? priceNamesOf(model, {}, isDomesticVideoModel(model), size);
  return { model, prompt, seconds, billedSeconds: origin.billedSeconds ?? seconds, size, priceNames, rewrites: {} };
}
