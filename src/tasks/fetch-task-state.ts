import type { ChannelRecord } from '../catalog/catalog-records.js';
import { mjSecretHeaders } from '../providers/midjourney/mj-secret-headers.js';
import { klingToken, parseKlingKey } from '../providers/kling/kling-credentials.js';
import { callVodApi } from '../providers/tencent-vod/call-vod-api.js';
import { parseVodKey } from '../providers/tencent-vod/vod-credentials.js';
import type { UpstreamClient, UpstreamRequest } from '../providers/upstream-client.js';
import { redactSecret } from '../relay/redact-secret.js';
import type { TaskRow } from '../storage/tasks-repository.js';
import { keyByFingerprint } from './key-fingerprint.js';
import { readKlingTask } from './read-kling-task.js';
import { findMjRecord, readMjTask } from './read-mj-task.js';
import { readOpenaiVideo, storableVideoAnswer } from './read-openai-video.js';
import { findSunoRecord, readSunoTask } from './read-suno-task.js';
import { readVodTaskDetail } from './read-vod-task-detail.js';
import type { TaskObservation } from './task-status.js';

/**
 * What the upstream says of a task now: its state and the answer to keep; 'unknown' when the upstream no
 * longer knows it (or its channel is gone); undefined when it could not answer (network, 429, 5xx, a body
 * of another shape): the task is asked again next time.
 */
export type FetchedTaskState = { observation: TaskObservation; result: string } | 'unknown' | undefined;

const pollTimeoutMs = 30_000;

/** Asks the task's own channel, with the key that submitted it, in the channel's protocol. */
export async function fetchTaskState(upstream: UpstreamClient, channels: readonly ChannelRecord[], task: TaskRow, nowMs: number): Promise<FetchedTaskState> {
  const channel = task.channel_id === null ? undefined : channels.find((candidate) => candidate.id === task.channel_id);
  const key = channel === undefined ? undefined : keyByFingerprint(channel.keys, task.key_fingerprint);
  if (channel === undefined || key === undefined || task.upstream_id === null) return 'unknown';
  const state = await fetchFromChannel(upstream, channel, key, task.upstream_id, nowMs);
  // A failure's reason is shown to the task's owner and kept in its refund's log row: never the channel's key.
  if (state === undefined || state === 'unknown' || state.observation.failReason === undefined) return state;
  return { ...state, observation: { ...state.observation, failReason: redactSecret(state.observation.failReason, key) } };
}

function fetchFromChannel(upstream: UpstreamClient, channel: ChannelRecord, key: string, upstreamId: string, nowMs: number): Promise<FetchedTaskState> {
  if (channel.type === 'tencent-vod') return fetchVodTask(upstream, channel, key, upstreamId, nowMs);
  if (channel.type === 'suno') return fetchSunoTask(upstream, channel, key, upstreamId);
  if (channel.type === 'kling') return fetchKlingTask(upstream, channel, key, upstreamId, nowMs);
  if (channel.type === 'midjourney') return fetchMjTask(upstream, channel, key, upstreamId);
  return fetchOpenaiVideo(upstream, channel, key, upstreamId);
}

/**
 * A Suno-API proxy: POST `{base}/suno/fetch` `{ids: [id]}`. A record missing from the answer is asked
 * again later (the proxy may lag); a task it never reports again times out and is refunded.
 */
async function fetchSunoTask(upstream: UpstreamClient, channel: ChannelRecord, key: string, upstreamId: string): Promise<FetchedTaskState> {
  const json = await readJson(upstream, {
    url: `${channel.baseUrl}/suno/fetch`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ ids: [upstreamId] }),
    signal: AbortSignal.timeout(pollTimeoutMs),
  });
  if (json === undefined || json === 'not_found') return undefined;
  const record = findSunoRecord(json, upstreamId);
  const observation = record === undefined ? undefined : readSunoTask(record);
  if (record === undefined || observation === undefined) return undefined;
  return { observation, result: JSON.stringify(record) };
}

/**
 * A Midjourney-proxy: POST `{base}/mj/task/list-by-condition` `{ids: [id]}` (protocols.md §1.6). A task
 * missing from the answer is asked again later; one the proxy never reports again times out and is refunded.
 */
async function fetchMjTask(upstream: UpstreamClient, channel: ChannelRecord, key: string, upstreamId: string): Promise<FetchedTaskState> {
  const json = await readJson(upstream, {
    url: `${channel.baseUrl}/mj/task/list-by-condition`,
    method: 'POST',
    headers: { ...mjSecretHeaders(key), 'content-type': 'application/json' },
    body: JSON.stringify({ ids: [upstreamId] }),
    signal: AbortSignal.timeout(pollTimeoutMs),
  });
  const record = json === 'not_found' ? undefined : findMjRecord(json, upstreamId);
  const observation = record === undefined ? undefined : readMjTask(record);
  if (record === undefined || observation === undefined) return undefined;
  return { observation, result: JSON.stringify(record) };
}

/** Kling: GET `{base}/v1/videos/{action}/{id}` (the recorded upstream id is that path) with a fresh JWT. */
async function fetchKlingTask(upstream: UpstreamClient, channel: ChannelRecord, key: string, upstreamId: string, nowMs: number): Promise<FetchedTaskState> {
  const credentials = parseKlingKey(key);
  if (credentials === undefined) return undefined;
  const json = await readJson(upstream, {
    url: `${channel.baseUrl}/v1/videos/${upstreamId.split('/').map(encodeURIComponent).join('/')}`,
    method: 'GET',
    headers: { authorization: `Bearer ${klingToken(credentials, nowMs)}`, accept: 'application/json' },
    body: undefined,
    signal: AbortSignal.timeout(pollTimeoutMs),
  });
  if (json === 'not_found') return 'unknown';
  const state = json === undefined ? undefined : readKlingTask(json);
  if (state === undefined) return undefined;
  return { observation: state.observation, result: JSON.stringify(json) };
}

/** OpenAI's Videos API: GET `{base}/v1/videos/{id}` (404: unknown). */
async function fetchOpenaiVideo(upstream: UpstreamClient, channel: ChannelRecord, key: string, upstreamId: string): Promise<FetchedTaskState> {
  const json = await readJson(upstream, {
    url: `${channel.baseUrl}/v1/videos/${encodeURIComponent(upstreamId)}`,
    method: 'GET',
    headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
    body: undefined,
    signal: AbortSignal.timeout(pollTimeoutMs),
  });
  if (json === 'not_found') return 'unknown';
  if (json === undefined) return undefined;
  const observation = readOpenaiVideo(json);
  if (observation === undefined) return undefined;
  return { observation, result: storableVideoAnswer(json as Record<string, unknown>) };
}

/** Tencent VOD: `DescribeTaskDetail` (ResourceNotFound: unknown; VOD keeps tasks for 3 days). */
async function fetchVodTask(upstream: UpstreamClient, channel: ChannelRecord, key: string, upstreamId: string, nowMs: number): Promise<FetchedTaskState> {
  const credentials = parseVodKey(key);
  if (credentials === undefined) return undefined;
  const called = await callVodApi(upstream, channel.baseUrl, credentials, 'DescribeTaskDetail', { TaskId: upstreamId, SubAppId: credentials.subAppId }, AbortSignal.timeout(pollTimeoutMs), nowMs);
  if (!called.ok) return called.code?.startsWith('ResourceNotFound') === true ? 'unknown' : undefined;
  const detail = readVodTaskDetail({ Response: called.response });
  if (detail === undefined || detail.kind === 'error') return undefined;
  return { observation: detail.observation, result: storableVideoAnswer({ Response: called.response }) };
}

/** A JSON answer; 'not_found' for a 404; undefined when there is none to read (network, other statuses, not JSON). */
async function readJson(upstream: UpstreamClient, request: UpstreamRequest): Promise<unknown> {
  const sent = await upstream.send(request);
  if (!sent.ok) return undefined;
  const { response } = sent;
  let text: string;
  try {
    text = (await response.body.bytes()).toString('utf8');
  } catch {
    return undefined;
  }
  if (response.statusCode === 404) return 'not_found';
  if (response.statusCode >= 300) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
