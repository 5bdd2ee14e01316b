import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyAsAsked, type WireStyle, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { modelOf, quotaPerUnit, sendWithSdk, startBillingFixture, styles, type BillingFixture } from './billing-fixture.js';

/**
 * Gemini bills the picture an image model makes at many times its text output (gemini-3-pro-image-preview:
 * $120 per million image tokens against $12 for text; gemini-2.5-flash-image $30 against $2.50). A gateway
 * that bills every output token at the text price undercharges each image ten times over. An upstream that
 * reports image tokens (Gemini's `IMAGE` modality entries, Chat's `image_tokens` details as OpenRouter
 * sends them, Responses' `image_tokens` details) is charged those at `image_input` / `image_output`, the rest as before, whatever the client's
 * style, and the log row records the image counts.
 */
const price = { input: 2, output: 12, cache_read: 0.2, cache_write: 2, image_input: 4, image_output: 120 };
const usage: WireUsage = { input: 1500, cacheRead: 300, imageIn: 1000, output: 1400, imageOut: 1290 };

/** The formula in exact integers: $ per 1M tokens ×10 (prices have at most one decimal here). */
function expected(): number {
  const plain = 1500 - 300;
  const deci = (plain - 1000) * 20 + 1000 * 40 + 300 * 2 + (1400 - 1290) * 120 + 1290 * 1200;
  const numerator = BigInt(deci) * BigInt(quotaPerUnit);
  const denominator = 10n * 1_000_000n;
  return Number((2n * numerator + denominator) / (2n * denominator));
}

const imageUpstreams: WireStyle[] = ['gemini', 'openai-chat', 'openai-responses'];

describe('image tokens are billed at the image prices', () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, extraPrice: price });
  });
  afterAll(async () => fixture?.close());

  it('the formula differs from billing every token at the text prices, so the test can tell them apart', () => {
    // 4,000 + 40,000 + 600 + 13,200 + 1,548,000 = 1,605,800 deci-$ per 1M tokens → $0.16058 → × 500,000 = 80,290.
    // Every token at the text prices: 1,200×2 + 300×0.2 + 1,400×12 = 19,260 → $0.01926 → 9,630.
    expect(expected()).toBe(80_290);
  });

  for (const upstream of imageUpstreams) {
    for (const client of styles) {
      for (const stream of [true, false]) {
        it(`${client} client → ${upstream} upstream (${stream ? 'stream' : 'whole'})`, async () => {
          fixture.primary[upstream].enqueue(replyAsAsked(upstream, { text: ['Here', ' it is'], usage }));
          const before = await fixture.balances();
          expect(await sendWithSdk(fixture.sdk, client, modelOf[upstream], stream, 2000)).toBe('Here it is');
          await fixture.settled();
          const row = (await fixture.logs()).at(-1);
          expect({ quota: Number(row.quota), imageIn: Number(row.image_input_tokens), imageOut: Number(row.image_output_tokens), source: row.usage_source }).toEqual({
            quota: expected(), imageIn: 1000, imageOut: 1290, source: 'upstream',
          });
          const after = await fixture.balances();
          expect(after.tokenUsed - before.tokenUsed).toBe(expected());
          expect(after.userUsed - before.userUsed).toBe(expected());
        });
      }
    }
  }

  // From the image-prices audit: the decoder took each chunk's report whole, so a closing chunk whose
  // usageMetadata (same counts) left out candidatesTokensDetails billed the picture as text.
  for (const stream of [true, false]) {
    it(`a Gemini stream detailing its IMAGE tokens on an earlier chunk only keeps them (${stream ? 'stream' : 'whole'})`, async () => {
      const closing: WireUsage = { input: 1500, cacheRead: 300, imageIn: 1000, output: 1400 };
      fixture.primary.gemini.enqueue(replyAsAsked('gemini', { text: ['Here', ' it is'], usage: closing }, { usageAt: (index) => (index === 1 ? usage : undefined) }));
      expect(await sendWithSdk(fixture.sdk, 'gemini', modelOf.gemini, stream, 2000)).toBe('Here it is');
      await fixture.settled();
      const row = (await fixture.logs()).at(-1);
      expect({ quota: Number(row.quota), imageOut: Number(row.image_output_tokens) }).toEqual({ quota: expected(), imageOut: 1290 });
    });
  }

  // A prompt's images, counted locally when the upstream reports no usage (the flat 1,000-token estimate
  // per image), are image input: they were billed at the text input price.
  const pixel = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
  const localCharge = (input: number, output: number) => {
    const deci = BigInt((input - 1000) * 20 + 1000 * 40 + output * 120) * BigInt(quotaPerUnit);
    return Number((2n * deci + 10_000_000n) / 20_000_000n);
  };
  it('a Chat client\'s image counted locally is billed at the image input price', async () => {
    fixture.primary['openai-chat'].enqueue(replyAsAsked('openai-chat', { text: ['A', ' pixel'] }));
    await fixture.sdk.openai.chat.completions.create({
      model: modelOf['openai-chat'],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: pixel } }] }],
    });
    await fixture.settled();
    const row = (await fixture.logs()).at(-1);
    expect({ source: row.usage_source, imageIn: Number(row.image_input_tokens) }).toEqual({ source: 'local', imageIn: 1000 });
    expect(Number(row.quota)).toBe(localCharge(Number(row.input_tokens), Number(row.output_tokens)));
  });
  it('an Anthropic client\'s image counted locally (the canonical count) is billed at the image input price', async () => {
    fixture.primary['openai-chat'].enqueue(replyAsAsked('openai-chat', { text: ['A', ' pixel'] }));
    await fixture.sdk.anthropic.messages.create({
      model: modelOf['openai-chat'],
      max_tokens: 100,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pixel.slice(pixel.indexOf(',') + 1) } }] }],
    });
    await fixture.settled();
    const row = (await fixture.logs()).at(-1);
    expect({ source: row.usage_source, imageIn: Number(row.image_input_tokens) }).toEqual({ source: 'local', imageIn: 1000 });
    expect(Number(row.quota)).toBe(localCharge(Number(row.input_tokens), Number(row.output_tokens)));
  });
});
