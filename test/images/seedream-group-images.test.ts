/**
 * From the endpoints audit: Seedream (spec §4.6 matrix, served on /v1/images/generations) makes a group of up to
 * 15 images in one request when `sequential_image_generation: "auto"` with
 * `sequential_image_generation_options.max_images` — without any `n`. Volcengine bills every generated
 * image (`usage.generated_images`). A per-image price must charge every image delivered (or refuse a
 * request the key cannot cover), not one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const model = 'doubao-seedream-4-5-251128';
const keyOf = (name: string) => `sk-${name.padEnd(48, 'g')}`;
/** 0.04 per image × 500,000 units = 20,000 units per image. */
const perImage = 20_000;
let upstream: ScriptedUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startTestGateway({
    dialect: 'sqlite',
    config: {
      retry_times: 0,
      prices: { [model]: { per_call: 0.04 } },
      channels: [{ name: 'ark', type: 'openai', base_url: upstream.url, key: 'sk-up', models: [model], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
      tokens: [
        { name: 'big', user: 'u', key: keyOf('big'), quota: 1_000_000_000, expires_at: 0, enabled: true },
        { name: 'one', user: 'u', key: keyOf('one'), quota: perImage, expires_at: 0, enabled: true },
      ],
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

const groupAnswer = (images: number) => ({
  model,
  created: 1,
  data: Array.from({ length: images }, (_, i) => ({ url: `https://ark.example/img-${i}.jpeg`, size: '2048x2048' })),
  usage: { generated_images: images, output_tokens: images * 16384, total_tokens: images * 16384 },
});
const groupRequest = { model, prompt: 'a four-panel story of a fox', size: '2K', sequential_image_generation: 'auto', sequential_image_generation_options: { max_images: 4 }, response_format: 'url' };

async function post(key: string): Promise<{ status: number; charge: number; upstreamCalls: number }> {
  const before = await usedOf(key);
  const calls = upstream.requests.length;
  const response = await fetch(`${gateway.url}/v1/images/generations`, { method: 'POST', headers: { authorization: `Bearer ${keyOf(key)}`, 'content-type': 'application/json' }, body: JSON.stringify(groupRequest) });
  await response.arrayBuffer();
  await gateway.settled();
  upstream.clearQueue();
  return { status: response.status, charge: (await usedOf(key)) - before, upstreamCalls: upstream.requests.length - calls };
}

describe('Seedream group generation (max_images) at a per-image price', () => {
  it('four images delivered are charged four images', async () => {
    upstream.enqueue({ json: groupAnswer(4) });
    const out = await post('big');
    expect(out.status).toBe(200);
    expect(out.charge).toBe(4 * perImage);
  });

  it('a key that covers one image is refused (402) before the upstream makes four', async () => {
    upstream.enqueue({ json: groupAnswer(4) });
    expect(await post('one')).toEqual({ status: 402, charge: 0, upstreamCalls: 0 });
  });
});
