/**
 * From the endpoints audit: no charge for answers that are errors (an HTTP 200 whose body is `{"error": …}`) on the
 * auxiliary OpenAI endpoints, and a gpt-image reservation that covers less than one documented image.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const keyOf = (name: string) => `sk-${name.padEnd(48, 'z')}`;
let upstream: ScriptedUpstream;
let gateway: TestGateway;
/** gpt-image-1 at 5 $/M input, 40 $/M output: 0.5 units per $·tok/M → 20 units per output token. */
const imageBudget = 4096;
/** Covers the prompt plus the default output budget of one image (≈ 81,920 + prompt), not OpenAI's high-quality 1536x1024 (6,240 output tokens ≈ 124,800). */
const imageKeyQuota = 90_000;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  const channel = { type: 'openai' as const, base_url: upstream.url, key: 'sk-up', groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} };
  gateway = await startTestGateway({
    dialect: 'sqlite',
    config: {
      retry_times: 0,
      prices: { 'rr-model': { per_call: 0.004 }, 'mod-model': { per_call: 0.002 }, 'emb-model': { input: 2 }, 'gpt-image-1': { input: 5, output: 40 } },
      channels: [{ ...channel, name: 'oai', models: ['rr-model', 'mod-model', 'emb-model', 'gpt-image-1'] }],
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
      tokens: ['rr', 'mod', 'emb', 'img'].map((name) => ({ name, user: 'u', key: keyOf(name), quota: name === 'img' ? imageKeyQuota : 1_000_000, expires_at: 0, enabled: true })),
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function usedOf(name: string): Promise<number> {
  const row = await gateway.gateway.services.database.db.selectFrom('tokens').select(['used_quota']).where('name', '=', name).executeTakeFirstOrThrow();
  return Number(row.used_quota);
}

async function charged(key: string, path: string, body: unknown): Promise<{ status: number; charge: number; body: string }> {
  const before = await usedOf(key);
  const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${keyOf(key)}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  await gateway.settled();
  return { status: response.status, charge: (await usedOf(key)) - before, body: text };
}

const errorDocument = { error: { message: 'upstream quota exhausted', type: 'insufficient_quota', code: 'insufficient_quota' } };

describe('an HTTP 200 that is an error document delivered nothing and costs nothing (as images already do)', () => {
  it('rerank (per-call price)', async () => {
    upstream.enqueue({ json: errorDocument });
    const out = await charged('rr', '/v1/rerank', { model: 'rr-model', query: 'q', documents: ['a', 'b'] });
    expect(out.charge).toBe(0);
  });
  it('moderations (per-call price)', async () => {
    upstream.enqueue({ json: errorDocument });
    const out = await charged('mod', '/v1/moderations', { model: 'mod-model', input: 'hello' });
    expect(out.charge).toBe(0);
  });
  it('embeddings (token price)', async () => {
    upstream.enqueue({ json: errorDocument });
    const out = await charged('emb', '/v1/embeddings', { model: 'emb-model', input: 'hello world '.repeat(200) });
    expect(out.charge).toBe(0);
  });
});

describe('the same for a token-priced image model', () => {
  it('gpt-image-1: a 200 content-policy error document costs nothing (per-call image models already pay nothing)', async () => {
    upstream.enqueue({ json: { error: { message: 'Your request was rejected by the safety system.', type: 'image_generation_user_error', code: 'content_policy_violation' } } });
    const out = await charged('emb', '/v1/images/generations', { model: 'gpt-image-1', prompt: 'a lighthouse at dusk '.repeat(20) });
    expect(out.charge).toBe(0);
  });
});

describe('gpt-image: the reservation covers the image the request asks for', () => {
  it('quality high, 1536x1024 (6,240 output tokens per OpenAI) on a key that covers only the default 4,096-token budget: refused, or charged in full', async () => {
    const outputTokens = 6240;
    upstream.enqueue({ json: { created: 1, data: [{ b64_json: 'aGk=' }], usage: { input_tokens: 10, output_tokens: outputTokens, total_tokens: 10 + outputTokens, input_tokens_details: { text_tokens: 10, image_tokens: 0 } } } });
    const out = await charged('img', '/v1/images/generations', { model: 'gpt-image-1', prompt: 'a lighthouse at dusk', quality: 'high', size: '1536x1024' });
    const full = Math.round((10 * 5 + outputTokens * 40) * 0.5);
    expect(imageBudget).toBe(gateway.gateway.services.catalog.snapshot.outputBudgetFor('gpt-image-1'));
    // No money lost: either the gateway refused before the upstream made the image, or it was paid in full.
    expect(out.status === 402 ? 0 : out.charge).toBe(out.status === 402 ? 0 : full);
  });
});
