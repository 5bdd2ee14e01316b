import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorReply, replyAsAsked, streamErrorEvent, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { expectedCharge, modelOf, promptTokensExact, sendWithSdk, startBillingFixture, styles, tokens, type BillingFixture } from './billing-fixture.js';

/**
 * The preferred channel answers 429 or 500 (or resets before its headers); the gateway fails over to
 * the second channel of the same style: exactly one charge, at the served channel's usage × the caller's
 * group ratio, on the served channel's counters; one log row; the reservation settled.
 */
const usage: WireUsage = { input: 120, cacheRead: 20, output: 45 };
const groupRatio: [number, number] = [3, 2]; // vip = 1.5

let fixture: BillingFixture;
// A fresh gateway per case: three failures in a row put a channel in a 30 s cooldown (docs/behaviour.md).
beforeEach(async () => {
  fixture = await startBillingFixture({ fallbacks: true, group: 'vip', groups: { default: 1, vip: 1.5 }, tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterEach(async () => fixture?.close());

describe('failover to the second channel charges once, at the group ratio', () => {
  for (const client of styles) {
    for (const upstream of styles) {
      for (const failure of [429, 500, 'reset'] as const) {
        for (const stream of [true, false]) {
          it(`${client} client → ${upstream}: first channel ${failure}, ${stream ? 'stream' : 'whole'}`, async () => {
            const primary = fixture.primary[upstream];
            const fallback = fixture.fallback![upstream];
            primary.enqueue(failure === 'reset' ? { ending: 'reset' } : errorReply(upstream, failure, 'busy'));
            fallback.enqueue(replyAsAsked(upstream, { text: ['Hello', ' there'], usage }));
            const channelsBefore = await fixture.channels();
            const before = await fixture.balances();
            const logsBefore = (await fixture.logs()).length;

            expect(await sendWithSdk(fixture.sdk, client, modelOf[upstream], stream, 200)).toBe('Hello there');
            expect(primary.requests.length).toBe(1);
            expect(fallback.requests.length).toBe(1);

            await fixture.settled();
            const logs = await fixture.logs();
            expect(logs.length - logsBefore).toBe(1);
            const row = logs.at(-1);
            const expected = expectedCharge(usage, groupRatio);
            expect({ quota: row.quota, channel: row.channel_id }).toEqual({ quota: expected, channel: fixture.channelIds[`fallback-${upstream}`] });
            const after = await fixture.balances();
            expect(after.tokenUsed - before.tokenUsed).toBe(expected);
            expect(before.tokenRemain - after.tokenRemain).toBe(expected);
            expect(before.userQuota - after.userQuota).toBe(expected);
            const channelsAfter = await fixture.channels();
            const delta = (name: string) => channelsAfter.find((c) => c.name === name)!.used_quota - channelsBefore.find((c) => c.name === name)!.used_quota;
            expect(delta(`fallback-${upstream}`)).toBe(expected);
            expect(delta(`primary-${upstream}`)).toBe(0);
            const reservation = (await fixture.reservations()).find((r) => r.id === row.request_id);
            expect(reservation).toMatchObject({ state: 'settled', settled_amount: expected });
          });
        }
      }
    }
  }
});

describe('an attempt that failed in-band before anything reached the client is not billed once another serves', () => {
  for (const client of ['gemini', 'openai-chat'] as const) {
    it(`${client} client, not streaming: the Gemini channel fails mid-answer, the fallback answers without usage — billed prompt + the served text only`, async () => {
      const half = { data: { candidates: [{ content: { role: 'model', parts: [{ text: 'A long half answer that never reached anyone' }] }, index: 0 }], modelVersion: 'gemini-2.5-flash' } };
      fixture.primary.gemini.enqueue({ sse: [half, streamErrorEvent('gemini', 'The model is overloaded.')], crlf: true });
      // The fallback reports no usage: the charge is counted locally.
      fixture.fallback!.gemini.enqueue(replyAsAsked('gemini', { text: ['Hello', ' there'] }));
      expect(await sendWithSdk(fixture.sdk, client, modelOf.gemini, false, 200)).toBe('Hello there');
      await fixture.settled();
      const row = (await fixture.logs()).at(-1);
      expect({ source: row.usage_source, output: Number(row.output_tokens), channel: row.channel_id }).toEqual({
        source: 'local', output: tokens('Hello there'), channel: fixture.channelIds['fallback-gemini'],
      });
      expect(Number(row.quota)).toBe(expectedCharge({ input: promptTokensExact(), output: tokens('Hello there') }, groupRatio));
    });
  }
});

describe('an attempt that failed in-band, followed by attempts that produced nothing, is billed what it produced', () => {
  it('openai-chat client, not streaming: the Gemini channel fails mid-answer, the fallback answers 500 — billed prompt + the half answer', async () => {
    const halfText = 'A long half answer that never reached anyone';
    const half = { data: { candidates: [{ content: { role: 'model', parts: [{ text: halfText }] }, index: 0 }], modelVersion: 'gemini-2.5-flash' } };
    fixture.primary.gemini.enqueue({ sse: [half, streamErrorEvent('gemini', 'The model is overloaded.')], crlf: true });
    fixture.fallback!.gemini.enqueue(errorReply('gemini', 500, 'busy'));
    await sendWithSdk(fixture.sdk, 'openai-chat', modelOf.gemini, false, 500).catch(() => undefined);
    await fixture.settled();
    const row = (await fixture.logs()).at(-1);
    expect({ source: row.usage_source, output: Number(row.output_tokens) }).toEqual({ source: 'local', output: tokens(halfText) });
    expect(Number(row.quota)).toBe(expectedCharge({ input: promptTokensExact(), output: tokens(halfText) }, groupRatio));
  });
});
