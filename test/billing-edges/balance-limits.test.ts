import { afterEach, describe, expect, it } from 'vitest';
import { replyAsAsked, type WireStyle, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { expectedCharge, modelOf, sendWithSdk, startBillingFixture, styles, type BillingFixture } from './billing-fixture.js';

/**
 * Usage above the reservation, concurrent spend against a small balance, token vs user quota and
 * unlimited tokens, every request through the client style's SDK. Rules (docs/behaviour.md "Billing"):
 * the reservation (estimated prompt × dearest input rate + max_tokens × output) must fit both wallets,
 * else 402 insufficient_quota and no upstream call; "a charge above the reservation is taken only as far
 * as the balances cover it: no balance ever goes below zero".
 */

/** The admission estimate of 'Say hello' in one message: 'Say' 1 + 'hello' ⌈5/3⌉ = 2, + 4 framing = 7. */
const estimatedPrompt = 7;
/** Reservation: the prompt at the dearest input-side rate (cache_write 3.75 > input 3) + max_tokens × 15. */
function reservationFor(maxTokens: number): number {
  // (7 × 3.75 + max × 15) $·tok/M × 0.5 quota per $·tok/M, exact in thousandths.
  const milli = BigInt(estimatedPrompt) * 3750n + BigInt(maxTokens) * 15000n;
  const numerator = milli * 500_000n;
  const denominator = 1_000_000_000n;
  return Number((2n * numerator + denominator) / (2n * denominator));
}

let fixture: BillingFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** Sends through the style's SDK; a refusal comes back as the error the SDK raised. */
async function send(f: BillingFixture, client: WireStyle, upstream: WireStyle, maxTokens: number | undefined, stream = true): Promise<{ served: boolean; error?: any }> {
  try {
    await sendWithSdk(f.sdk, client, modelOf[upstream], stream, maxTokens);
    return { served: true };
  } catch (error) {
    return { served: false, error };
  }
}

describe('usage above the reservation is charged only as far as the balances cover it', () => {
  for (const wallet of ['token', 'user'] as const) {
    it(`takes the overage only as far as the ${wallet} balance covers it`, async () => {
      const reserved = reservationFor(20);
      const headroom = 500;
      fixture = await startBillingFixture(wallet === 'token' ? { tokenQuota: reserved + headroom, userQuota: 100_000_000 } : { tokenQuota: undefined, userQuota: reserved + headroom });
      // Asked for 20 output tokens, the upstream reports 1,000 (a misbehaving or mis-mapped upstream).
      const usage: WireUsage = { input: 7, output: 1000 };
      fixture.primary['openai-chat'].enqueue(replyAsAsked('openai-chat', { text: ['Hello'], usage }));
      expect((await send(fixture, 'openai-chat', 'openai-chat', 20)).served).toBe(true);
      await fixture.settled();
      const [row] = await fixture.logs();
      const full = expectedCharge(usage);
      expect(full).toBeGreaterThan(reserved + headroom);
      const charged = reserved + headroom;
      expect(row.quota).toBe(charged);
      const books = await fixture.balances();
      if (wallet === 'token') expect({ remain: books.tokenRemain, used: books.tokenUsed }).toEqual({ remain: 0, used: charged });
      else expect({ quota: books.userQuota, used: books.userUsed }).toEqual({ quota: 0, used: charged });
      expect(await fixture.reservations()).toMatchObject([{ state: 'settled', amount: reserved, settled_amount: charged }]);
    });
  }

  it('never lets concurrent overages drive a balance below zero (20 requests, each reporting 20× its reservation)', async () => {
    const grant = 10_000;
    fixture = await startBillingFixture({ tokenQuota: grant, userQuota: 100_000_000 });
    const usage: WireUsage = { input: 7, output: 200 };
    const answer = replyAsAsked('openai-chat', { text: ['Hello', ' there'], usage });
    fixture.primary['openai-chat'].setFallback((request) => ({ ...answer(request), delayMs: 30 }));
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => send(fixture!, 'openai-chat', 'openai-chat', 10)));
    await fixture.settled();
    const logs = await fixture.logs();
    const books = await fixture.balances();
    const charged = logs.reduce((sum, row) => sum + Number(row.quota), 0);
    expect(books.tokenRemain).toBeGreaterThanOrEqual(0);
    expect(books.tokenRemain + books.tokenUsed).toBe(grant);
    expect(books.tokenUsed).toBe(charged);
    expect(charged).toBeLessThanOrEqual(grant);
    expect((await fixture.reservations()).filter((r) => r.state !== 'settled')).toEqual([]);
    expect(outcomes.filter((o) => o.served).length).toBe(fixture.primary['openai-chat'].requests.length);
  });
});

/** The 402 refusal each style's SDK raises (docs/behaviour.md "Errors"). */
function expectQuotaRefusal(client: WireStyle, error: any) {
  expect(error?.status).toBe(402);
  switch (client) {
    case 'openai-chat':
    case 'openai-responses':
      // The openai SDK keeps the body's `error` object.
      expect(error.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
      return;
    case 'anthropic':
      // The Anthropic SDK keeps the whole body.
      expect(error.error).toMatchObject({ type: 'error', error: { type: 'billing_error' } });
      return;
    case 'gemini': {
      // @google/genai puts the body's JSON in its message.
      const message = String(error.message);
      expect(JSON.parse(message.slice(message.indexOf('{')))).toMatchObject({ error: { code: 402, status: 'RESOURCE_EXHAUSTED' } });
      return;
    }
  }
}

describe('20 concurrent streams against a balance that fits 5: 5 served and charged, 15 refused with 402', () => {
  for (const client of styles) {
    for (const upstream of ['openai-chat', 'anthropic', 'gemini'] as WireStyle[]) {
      for (const wallet of ['token', 'user'] as const) {
        it(`${client} client → ${upstream}, ${wallet} wallet short`, async () => {
          const reserved = reservationFor(100);
          const grant = 5 * reserved + 100;
          fixture = await startBillingFixture(wallet === 'token' ? { tokenQuota: grant, userQuota: 100_000_000 } : { tokenQuota: undefined, userQuota: grant });
          const usage: WireUsage = { input: estimatedPrompt, output: 100 };
          const each = expectedCharge(usage);
          // Slow streams so all 20 are in flight together.
          const answer = replyAsAsked(upstream, { text: ['Hello', ' there', ' friend'], usage });
          fixture.primary[upstream].setFallback((request) => ({ ...answer(request), delayMs: 60 }));
          const outcomes = await Promise.all(Array.from({ length: 20 }, () => send(fixture!, client, upstream, 100)));
          await fixture.settled();
          const refused = outcomes.filter((o) => !o.served);
          expect(outcomes.length - refused.length).toBe(5);
          for (const refusal of refused) expectQuotaRefusal(client, refusal.error);
          expect(fixture.primary[upstream].requests.length).toBe(5);
          const books = await fixture.balances();
          const logs = await fixture.logs();
          const charged = logs.reduce((sum, row) => sum + Number(row.quota), 0);
          expect(charged).toBe(5 * each);
          if (wallet === 'token') expect(books.tokenRemain).toBe(grant - 5 * each);
          else expect(books.userQuota).toBe(grant - 5 * each);
          expect((await fixture.reservations()).filter((r) => r.state !== 'settled')).toEqual([]);
          expect(logs.filter((row) => Number(row.quota) > 0).length).toBe(5);
        });
      }
    }
  }
});

describe('unlimited token, limited user: the user wallet is charged exactly, the token only counts', () => {
  for (const client of styles) {
    it(`${client} client → anthropic upstream with cache write/read`, async () => {
      fixture = await startBillingFixture({ tokenQuota: undefined, userQuota: 1_000_000 });
      const usage: WireUsage = { input: 900, cacheRead: 300, cacheWrite: 200, output: 77 };
      fixture.primary.anthropic.enqueue(replyAsAsked('anthropic', { text: ['Hi'], usage }));
      expect((await send(fixture, client, 'anthropic', 300)).served).toBe(true);
      await fixture.settled();
      const expected = expectedCharge(usage);
      const books = await fixture.balances();
      expect(books.userQuota).toBe(1_000_000 - expected);
      expect(books.userUsed).toBe(expected);
      expect(books.tokenUsed).toBe(expected);
      const [row] = await fixture.logs();
      expect(row.quota).toBe(expected);
    });
  }
});

describe('a token without quota left is refused before any upstream call, in every style', () => {
  for (const client of styles) {
    it(`${client} client: token grant below one reservation`, async () => {
      fixture = await startBillingFixture({ tokenQuota: reservationFor(100) - 1, userQuota: 100_000_000 });
      const outcome = await send(fixture, client, 'openai-chat', 100);
      expect(outcome.served).toBe(false);
      expectQuotaRefusal(client, outcome.error);
      expect(fixture.primary['openai-chat'].requests.length).toBe(0);
      const books = await fixture.balances();
      expect(books.tokenRemain).toBe(reservationFor(100) - 1);
      expect(books.tokenUsed).toBe(0);
    });
  }
});
