import type { CanonicalRequest } from '../canonical/canonical-request.js';
import type { ChannelRecord } from '../catalog/catalog-records.js';
import { buildProviderRequest, upstreamStreams, upstreamTextStyleOf } from '../providers/build-provider-request.js';
import { mjSecretHeaders } from '../providers/midjourney/mj-secret-headers.js';
import { klingToken, parseKlingKey } from '../providers/kling/kling-credentials.js';
import { callVodApi } from '../providers/tencent-vod/call-vod-api.js';
import { parseVodKey } from '../providers/tencent-vod/vod-credentials.js';
import { resolveModelMapping } from '../routing/resolve-model-mapping.js';
import { redactSecret } from './redact-secret.js';
import { maxErrorBodyBytes, readUpstreamErrorBody } from './read-upstream-error.js';
import type { RelayServices } from './relay-services.js';
import { textStyles } from './text/text-styles.js';

export interface ChannelTestResult {
  ok: boolean;
  status: number | null;
  latencyMs: number;
  model: string;
  message: string;
}

/**
 * Sends a tiny request to one channel, in the channel's own protocol (Chat Completions, Responses,
 * Anthropic Messages or Gemini, as a relayed request would go; a lookup for Tencent VOD, Suno, Kling and
 * Midjourney, which make nothing for free), with each of its keys in turn until one answers. Nothing is billed: an operator's check, not a user's request. A key the upstream quotes in
 * its error is masked.
 */
export async function testChannel(services: RelayServices, channel: ChannelRecord, requestedModel: string | undefined): Promise<ChannelTestResult> {
  const model = requestedModel ?? channel.models[0] ?? 'gpt-4o-mini';
  if (channel.type === 'tencent-vod') return testVodChannel(services, channel, model);
  if (channel.type === 'suno') return testSunoChannel(services, channel, model);
  if (channel.type === 'kling') return testKlingChannel(services, channel, model);
  if (channel.type === 'midjourney') return testMjChannel(services, channel, model);
  const mapping = resolveModelMapping(channel.modelMapping, model);
  const upstreamModel = mapping.ok ? mapping.upstreamModel : model;
  const style = upstreamTextStyleOf(channel) ?? 'openai-chat';
  const stream = upstreamStreams(style, false);
  // 16 output tokens: the least the Responses API accepts.
  const probe: CanonicalRequest = { model: upstreamModel, system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], maxOutputTokens: 16, stream };
  const body = JSON.stringify(textStyles[style].formatRequest(probe, upstreamModel).value);
  return probeEachKey(services, channel, model, (key) => {
    const target = buildProviderRequest(style, { baseUrl: channel.baseUrl, key, upstreamModel, stream, clientHeaders: {} });
    return { url: target.url, headers: target.headers, body };
  }, (status) => status < 400);
}

/**
 * Sends one probe per key until one succeeds (`succeeded` reads the status and the body): the first
 * success, else the last failure, its message with the key masked.
 */
async function probeEachKey(
  services: RelayServices,
  channel: ChannelRecord,
  model: string,
  probe: (key: string) => { url: string; headers: Record<string, string>; body: string | undefined; method?: 'GET' | 'POST' },
  succeeded: (status: number, text: string) => boolean,
): Promise<ChannelTestResult> {
  const startedAt = services.now();
  let last: ChannelTestResult = { ok: false, status: null, latencyMs: 0, model, message: 'The channel has no key.' };
  for (const key of channel.keys) {
    const request = probe(key);
    const sent = await services.upstream.send({ url: request.url, headers: request.headers, body: request.body, method: request.method ?? 'POST', signal: AbortSignal.timeout(30_000) });
    const latencyMs = services.now() - startedAt;
    if (!sent.ok) {
      last = { ok: false, status: null, latencyMs, model, message: redactSecret(sent.failure.message, key) };
      continue;
    }
    const text = await sent.response.body.text().catch(() => '');
    const status = sent.response.statusCode;
    if (succeeded(status, text)) return { ok: true, status, latencyMs, model, message: 'ok' };
    last = { ok: false, status, latencyMs, model, message: readUpstreamErrorBody(redactSecret(text.slice(0, maxErrorBodyBytes), key), status).message };
  }
  return last;
}

/**
 * A Tencent VOD channel generates nothing for free: each key asks `DescribeTaskDetail` of a task that does
 * not exist. VOD's `ResourceNotFound` (or a throttling code) means the key and its signature work.
 */
async function testVodChannel(services: RelayServices, channel: ChannelRecord, model: string): Promise<ChannelTestResult> {
  const startedAt = services.now();
  let last: ChannelTestResult = { ok: false, status: null, latencyMs: 0, model, message: 'The channel has no key.' };
  for (const key of channel.keys) {
    const credentials = parseVodKey(key);
    if (credentials === undefined) {
      last = { ok: false, status: null, latencyMs: 0, model, message: 'The key is not SubAppId|SecretId|SecretKey[|Region].' };
      continue;
    }
    const called = await callVodApi(services.upstream, channel.baseUrl, credentials, 'DescribeTaskDetail', { TaskId: 'relay-channel-test', SubAppId: credentials.subAppId }, AbortSignal.timeout(30_000), services.now());
    const latencyMs = services.now() - startedAt;
    // Only VOD's own word that the task does not exist (or that it is busy) proves the key: any other
    // answer — a web server's 404, a SubAppId refused — does not.
    if (called.ok || called.code?.startsWith('ResourceNotFound') === true || called.code?.includes('LimitExceeded') === true) return { ok: true, status: 200, latencyMs, model, message: 'ok' };
    last = { ok: false, status: called.failure.kind === 'status' ? called.failure.status : null, latencyMs, model, message: redactSecret(called.failure.message, key) };
  }
  return last;
}

/** A Suno proxy: each key asks for an empty batch (`POST /suno/fetch {ids: []}`); `code: success` proves it. */
function testSunoChannel(services: RelayServices, channel: ChannelRecord, model: string): Promise<ChannelTestResult> {
  return probeEachKey(
    services,
    channel,
    model,
    (key) => ({ url: `${channel.baseUrl}/suno/fetch`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"ids":[]}' }),
    (status, text) => status < 300 && /"code"\s*:\s*"success"/.test(text),
  );
}

/** Kling: each key lists one task (`GET /v1/videos/text2video?pageNum=1&pageSize=1`); `code: 0` proves it. */
function testKlingChannel(services: RelayServices, channel: ChannelRecord, model: string): Promise<ChannelTestResult> {
  return probeEachKey(
    services,
    channel,
    model,
    (key) => {
      const credentials = parseKlingKey(key);
      const authorization = credentials === undefined ? '' : `Bearer ${klingToken(credentials, services.now())}`;
      return { url: `${channel.baseUrl}/v1/videos/text2video?pageNum=1&pageSize=1`, headers: { authorization, accept: 'application/json' }, body: undefined, method: 'GET' };
    },
    (status, text) => status < 300 && /"code"\s*:\s*0\b/.test(text),
  );
}

/** A Midjourney-proxy: each key lists no tasks (`POST /mj/task/list-by-condition {ids: []}`); a JSON array proves it. */
function testMjChannel(services: RelayServices, channel: ChannelRecord, model: string): Promise<ChannelTestResult> {
  return probeEachKey(
    services,
    channel,
    model,
    (key) => ({ url: `${channel.baseUrl}/mj/task/list-by-condition`, headers: { ...mjSecretHeaders(key), 'content-type': 'application/json' }, body: '{"ids":[]}' }),
    (status, text) => status < 300 && text.trimStart().startsWith('['),
  );
}
