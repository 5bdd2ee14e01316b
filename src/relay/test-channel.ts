import type { ChannelRecord } from '../catalog/catalog-records.js';
import { resolveModelMapping } from '../routing/resolve-model-mapping.js';
import { maxErrorBodyBytes, readUpstreamErrorBody } from './read-upstream-error.js';
import type { RelayServices } from './relay-services.js';

export interface ChannelTestResult {
  ok: boolean;
  status: number | null;
  latencyMs: number;
  model: string;
  message: string;
}

/**
 * Sends a tiny chat request to one channel with each of its keys in turn until one answers. Nothing is
 * billed: an operator's check, not a user's request.
 */
export async function testChannel(services: RelayServices, channel: ChannelRecord, requestedModel: string | undefined): Promise<ChannelTestResult> {
  const model = requestedModel ?? channel.models[0] ?? 'gpt-4o-mini';
  const mapping = resolveModelMapping(channel.modelMapping, model);
  const upstreamModel = mapping.ok ? mapping.upstreamModel : model;
  const startedAt = services.now();
  let last: ChannelTestResult = { ok: false, status: null, latencyMs: 0, model, message: 'The channel has no key.' };
  for (const key of channel.keys) {
    const sent = await services.upstream.send({
      url: `${channel.baseUrl}/v1/chat/completions`,
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: upstreamModel, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }),
      signal: AbortSignal.timeout(30_000),
    });
    const latencyMs = services.now() - startedAt;
    if (!sent.ok) {
      last = { ok: false, status: null, latencyMs, model, message: sent.failure.message };
      continue;
    }
    const text = await sent.response.body.text().catch(() => '');
    const status = sent.response.statusCode;
    if (status < 400) return { ok: true, status, latencyMs, model, message: 'ok' };
    last = { ok: false, status, latencyMs, model, message: readUpstreamErrorBody(text.slice(0, maxErrorBodyBytes), status).message };
  }
  return last;
}
