/**
 * From the image-billing gaps: a gpt-image edit with `input_fidelity: "high"` is billed up to 6,240 more
 * image input tokens per reference image (OpenAI's image generation guide: 4,160 square, 6,240 portrait or
 * landscape), but the reservation held the flat 1,000 per image, and the charge above a reservation is taken
 * only as far as the balances cover. The reservation now holds the surcharge per reference image, on every
 * database, through the openai SDK's `images.edit` (a multipart form).
 */
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { testDialects } from '../support/test-databases.js';

const model = 'gpt-image-1';
const richKey = `sk-${'r'.repeat(48)}`;
const lowKey = `sk-${'l'.repeat(48)}`;
const highKey = `sk-${'h'.repeat(48)}`;
/**
 * gpt-image-1 at 5 $/M in, 40 $/M out (2.5 and 20 units a token); output budget 300 tokens (6,000 units).
 * A low-fidelity edit of one image reserves ≈ 1,010 input tokens (≈ 2,525) + 6,000 ≈ 8,525; a high-fidelity
 * one 6,240 tokens (15,600 units) more. This key covers the first and not the second.
 */
const keyQuota = 15_000;
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** What OpenAI reports for a high-fidelity edit of one landscape image: 194 tokens of tile plus the surcharge. */
const highUsage = { input_tokens: 20 + 194 + 6240, output_tokens: 272, total_tokens: 20 + 194 + 6240 + 272, input_tokens_details: { text_tokens: 20, image_tokens: 194 + 6240 } };
const answer = (usage: unknown) => ({ json: { created: 1, data: [{ b64_json: 'aGk=' }], usage } });

describe.each(testDialects)('a high-fidelity gpt-image edit reserves its reference images at high fidelity (%s)', (dialect) => {
  let upstream: ScriptedUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    gateway = await startTestGateway({
      dialect,
      config: {
        retry_times: 0,
        default_max_output_tokens: 300,
        prices: { [model]: { input: 5, output: 40 } },
        channels: [{ name: 'oai', type: 'openai', base_url: upstream.url, key: 'sk-up', models: [model], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
        users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
        tokens: [
          { name: 'rich', user: 'u', key: richKey, quota: 100_000_000, expires_at: 0, enabled: true },
          { name: 'low', user: 'u', key: lowKey, quota: keyQuota, expires_at: 0, enabled: true },
          { name: 'high', user: 'u', key: highKey, quota: keyQuota, expires_at: 0, enabled: true },
        ],
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const edit = async (key: string, fidelity: 'high' | 'low') =>
    client(key).images.edit({ model, image: await toFile(png, 'face.png', { type: 'image/png' }), prompt: 'Add a hat', quality: 'low', size: '1024x1024', input_fidelity: fidelity });

  it('a key that covers a low-fidelity edit (served) but not the high-fidelity surcharge: 402 before any upstream call', async () => {
    upstream.enqueue(answer({ input_tokens: 214, output_tokens: 272, total_tokens: 486, input_tokens_details: { text_tokens: 20, image_tokens: 194 } }));
    expect((await edit(lowKey, 'low')).data?.[0]?.b64_json).toBe('aGk=');
    const sent = upstream.requests.length;
    await expect(edit(highKey, 'high')).rejects.toMatchObject({ status: 402 });
    expect(upstream.requests.length).toBe(sent);
  });

  it('the reservation covers the usage OpenAI reports for a high-fidelity edit, which is charged in full', async () => {
    upstream.enqueue(answer(highUsage));
    await edit(richKey, 'high');
    await gateway.settled();
    const rows = await gateway.gateway.services.database.db.selectFrom('quota_reservations').select(['amount', 'settled_amount', 'created_at']).orderBy('created_at').execute();
    const last = rows.at(-1)!;
    // 6,454 input tokens × 2.5 + 272 output tokens × 20 = 16,135 + 5,440.
    expect(Number(last.settled_amount)).toBe(21_575);
    expect(Number(last.amount)).toBeGreaterThanOrEqual(Number(last.settled_amount));
  });
});
