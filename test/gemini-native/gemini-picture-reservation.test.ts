/**
 * From the image-billing gaps: a Gemini image model writes a picture (~1,290 image tokens; gemini-3-pro-image
 * 1,120 at 1K/2K, 2,000 at 4K) whatever `maxOutputTokens` says, and the charge above a reservation is taken
 * only as far as the balances cover. A key that covered a small limit but not the picture got the picture
 * nearly free. The reservation now holds one picture per candidate beside the limit: by the model's name
 * (also the name a channel maps it to), its `image_output` price, or a Gemini request asking for IMAGE —
 * for Gemini clients (@google/genai) and converted ones (openai SDK), on every database.
 */
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { testDialects } from '../support/test-databases.js';

const flash = 'gemini-2.5-flash-image';
const pro = 'gemini-3-pro-image-preview';
/** A name that says nothing of images, mapped by the channel to an image model. */
const alias = 'nano-banana';
/** Another such name, which only its `image_output` price says writes images. */
const painter = 'house-painter';
const richKey = `sk-${'r'.repeat(48)}`;
const poorKey = `sk-${'p'.repeat(48)}`;
// $ per 1M tokens; quota_per_unit 500 000 → an output token at 30 $/M is 15 units: a 1,290-token picture 19,350.
const tokenPrice = { input: 0.3, output: 30 };
/** Covers a 10-token limit (150 units and the prompt), not a picture. */
const poorQuota = 2_000;

const imageAnswer = (imageTokens: number) => ({
  json: {
    candidates: [{ content: { role: 'model', parts: [{ text: 'Here' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 8, candidatesTokenCount: imageTokens + 1, totalTokenCount: imageTokens + 9, candidatesTokensDetails: [{ modality: 'IMAGE', tokenCount: imageTokens }, { modality: 'TEXT', tokenCount: 1 }] },
    modelVersion: 'gemini-image',
  },
});

describe.each(testDialects)('a Gemini image model reserves its picture (%s)', (dialect) => {
  let gemini: ScriptedUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    gemini = await startScriptedUpstream();
    gateway = await startTestGateway({
      dialect,
      config: {
        prices: { [flash]: tokenPrice, [pro]: tokenPrice, [alias]: tokenPrice, [painter]: { input: 0.3, output: 2.5, image_output: 30 } },
        channels: [
          { name: 'gem', type: 'gemini', base_url: gemini.url, key: 'up', models: [flash, pro, alias, painter], groups: ['default'], priority: 10, weight: 1, model_mapping: { [alias]: flash }, enabled: true, auto_disable: false, settings: {} },
        ],
        users: [{ username: 'payer', role: 'user', group: 'default', enabled: true, quota: 1_000_000_000 }],
        tokens: [
          { name: 'rich', user: 'payer', key: richKey, expires_at: 0, enabled: true, quota: 100_000_000 },
          { name: 'poor', user: 'payer', key: poorKey, expires_at: 0, enabled: true, quota: poorQuota },
        ],
      } as any,
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await gemini?.close();
  });

  const genai = (key: string) => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway.url } });
  const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const picture = (model: string, config: Record<string, unknown> = {}) => ({ model, contents: [{ role: 'user', parts: [{ text: 'A red bicycle' }] }], config: { maxOutputTokens: 10, ...config } });

  async function refusedWithoutUpstream(call: () => Promise<unknown>): Promise<void> {
    const sent = gemini.requests.length;
    await expect(call()).rejects.toMatchObject({ status: 402 });
    expect(gemini.requests.length).toBe(sent);
  }

  it.each([
    ['the model named for images', flash, {}],
    ['a name the channel maps to an image model', alias, {}],
    ['a name priced with image_output', painter, {}],
    ['gemini-3-pro-image at 4K', pro, { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { imageSize: '4K' } }],
  ])('Gemini client, %s, maxOutputTokens 10, a key that cannot cover the picture: 402 before any upstream call', async (_case, model, config) => {
    await refusedWithoutUpstream(() => genai(poorKey).models.generateContent(picture(model as string, config as Record<string, unknown>)));
  });

  it('a converted client (Chat, max_tokens 10) of the image model: 402 before any upstream call', async () => {
    await refusedWithoutUpstream(() => openai(poorKey).chat.completions.create({ model: flash, max_tokens: 10, messages: [{ role: 'user', content: 'A red bicycle' }] }));
  });

  it('the reservation covers a 4K picture of gemini-3-pro-image (2,000 image tokens), which is charged in full', async () => {
    gemini.enqueue(imageAnswer(2000));
    const answer = await genai(richKey).models.generateContent(picture(pro, { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { imageSize: '4K' } }));
    expect(answer.candidates?.[0]?.content?.parts?.[1]?.inlineData?.data).toBe('AAAA');
    await gateway.settled();
    const rows = await gateway.gateway.services.database.db.selectFrom('quota_reservations').select(['amount', 'settled_amount', 'created_at']).orderBy('created_at').execute();
    const last = rows.at(-1)!;
    // 8 prompt tokens at 0.3 $/M (1.2 units) + 2,001 output tokens at 30 $/M (30,015 units) → 30,016.
    expect(Number(last.settled_amount)).toBe(30_016);
    expect(Number(last.amount)).toBeGreaterThanOrEqual(Number(last.settled_amount));
  });
});
