import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../fakes/scripted-upstream.js';
import { replyAsAsked, type WireStyle, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { expectedCharge, modelOf, quotaPerUnit, sendWithSdk, startBillingFixture, styles, type BillingFixture } from './billing-fixture.js';

/**
 * OpenAI bills the audio tokens of its audio models at several times their text price, and Gemini its audio
 * input above text; a gateway that bills every token at the text price undercharges such a call many times
 * over. An upstream that reports audio (Chat's `audio_tokens` details, Gemini's `AUDIO` modality entries) is
 * charged those tokens at `audio_input` / `audio_output`, the rest as before, whatever the client's style, and
 * the log row records the audio counts.
 */
const price = { input: 2.5, output: 10, cache_read: 1.25, cache_write: 3.75, audio_input: 40, audio_output: 80 };
const usage: WireUsage = { input: 1200, cacheRead: 200, audioIn: 700, output: 90, audioOut: 60 };

/** The formula in exact integers: $ per 1M tokens ×100 (prices have at most two decimals here). */
function expected(): number {
  const plain = 1200 - 200;
  const centi = (plain - 700) * 250 + 700 * 4000 + 200 * 125 + (90 - 60) * 1000 + 60 * 8000;
  const numerator = BigInt(centi) * BigInt(quotaPerUnit);
  const denominator = 100n * 1_000_000n;
  return Number((2n * numerator + denominator) / (2n * denominator));
}

const audioUpstreams: WireStyle[] = ['openai-chat', 'gemini'];

describe('audio tokens are billed at the audio prices', () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, extraPrice: price });
  });
  afterAll(async () => fixture?.close());

  it('the formula differs from billing every token at the text prices, so the test can tell them apart', () => {
    // 75,000 + 2,800,000 + 25,000 + 30,000 + 480,000 = 3,410,000 centi-$ per 1M tokens → $0.0341 → × 500,000 = 17,050.
    // Every token at the text prices: 250,000 + 25,000 + 90,000 = 365,000 → $0.00365 → 1,825.
    expect(expected()).toBe(17_050);
  });

  for (const upstream of audioUpstreams) {
    for (const client of styles) {
      for (const stream of [true, false]) {
        it(`${client} client → ${upstream} upstream (${stream ? 'stream' : 'whole'})`, async () => {
          fixture.primary[upstream].enqueue(replyAsAsked(upstream, { text: ['Hello', ' world'], usage }));
          const before = await fixture.balances();
          expect(await sendWithSdk(fixture.sdk, client, modelOf[upstream], stream, 500)).toBe('Hello world');
          await fixture.settled();
          const row = (await fixture.logs()).at(-1);
          expect({ quota: Number(row.quota), audioIn: Number(row.audio_input_tokens), audioOut: Number(row.audio_output_tokens), source: row.usage_source }).toEqual({
            quota: expected(), audioIn: 700, audioOut: 60, source: 'upstream',
          });
          const after = await fixture.balances();
          expect(after.tokenUsed - before.tokenUsed).toBe(expected());
          expect(after.userUsed - before.userUsed).toBe(expected());
        });
      }
    }
  }
});

/** A Gemini stream ("Hello world") whose closing chunk carries `usageMetadata` as given. */
function geminiReplyWithUsage(usageMetadata: Record<string, unknown>): ScriptedReply {
  const frame = (parts: Record<string, unknown>[], extra: Record<string, unknown>): { data: Record<string, unknown> } => ({
    data: { candidates: [{ content: { parts, role: 'model' }, index: 0, ...extra }], modelVersion: 'gemini-2.5-flash', responseId: 'r1' },
  });
  const closing = frame([{ text: '' }], { finishReason: 'STOP' });
  return { sse: [frame([{ text: 'Hello' }], {}), frame([{ text: ' world' }], {}), { data: { ...closing.data, usageMetadata } }], crlf: true };
}

// From the audio audit: modality details written as null (relays write an empty Go slice so) made the whole
// usageMetadata unreadable, and the request was billed a local count of its text instead of the report.
describe('a Gemini upstream whose usageMetadata carries null modality details is billed its reported usage', () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
  });
  afterAll(async () => fixture?.close());

  for (const client of ['openai-chat', 'gemini'] as const) {
    it(`${client} client, streamed`, async () => {
      fixture.primary.gemini.enqueue(geminiReplyWithUsage({ promptTokenCount: 1200, candidatesTokenCount: 90, totalTokenCount: 1290, promptTokensDetails: null, candidatesTokensDetails: null }));
      const before = await fixture.balances();
      expect(await sendWithSdk(fixture.sdk, client, modelOf.gemini, true, 500)).toBe('Hello world');
      await fixture.settled();
      const row = (await fixture.logs()).at(-1);
      expect({ source: row.usage_source, input: Number(row.input_tokens), output: Number(row.output_tokens) }).toEqual({ source: 'upstream', input: 1200, output: 90 });
      const after = await fixture.balances();
      expect(after.tokenUsed - before.tokenUsed).toBe(expectedCharge({ input: 1200, output: 90 }));
    });
  }
});
