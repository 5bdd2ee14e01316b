import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorReply, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { modelOf, sendWithSdk, startBillingFixture, styles, type BillingFixture } from './billing-fixture.js';

/**
 * Both channels of a style fail (503, then 429 with `retry-after` on the fallback): the client gets the
 * last error in its own SDK's error class and status (with the upstream's `retry-after`), nothing is
 * charged, and the reservation is settled at 0. From the failover audit, trimmed from its 32 cases to
 * each client style on its own style's channels (streamed) and on the next style's (whole, converted).
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ fallbacks: true, tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

describe('every channel fails', () => {
  for (const [index, client] of styles.entries()) {
    const next = styles[(index + 1) % styles.length]!;
    for (const [upstream, stream] of [[client, true], [next, false]] as const) {
      it(`${client} client → ${upstream} upstreams (503 then 429), ${stream ? 'stream' : 'whole'}: SDK error 429, charged 0, reservation released`, async () => {
        fixture.primary[upstream].enqueue(errorReply(upstream, 503, 'primary down'));
        fixture.fallback![upstream].enqueue({ ...errorReply(upstream, 429, 'slow down'), headers: { 'retry-after': '7' } });
        await fixture.settled();
        const before = await fixture.balances();
        const asked = { primary: fixture.primary[upstream].requests.length, fallback: fixture.fallback![upstream].requests.length };
        const error = (await sendWithSdk(fixture.sdk, client, modelOf[upstream], stream, 200).then(() => undefined, (e: unknown) => e)) as any;
        expect(error).toBeDefined();
        if (client === 'anthropic') {
          expect(error).toBeInstanceOf(Anthropic.APIError);
          expect(error.status).toBe(429);
          expect(error.error?.type).toBe('error');
          expect(error.error?.error?.type).toBe('rate_limit_error');
        } else if (client === 'gemini') {
          expect(error?.status).toBe(429);
          const parsed = JSON.parse(String(error.message).slice(String(error.message).indexOf('{')));
          expect(parsed.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
        } else {
          expect(error).toBeInstanceOf(OpenAI.APIError);
          expect(error.status).toBe(429);
          expect(typeof error.error?.message).toBe('string');
        }
        const retryAfter = error.headers?.get?.('retry-after') ?? error.headers?.['retry-after'];
        if (client !== 'gemini') expect(retryAfter).toBe('7');
        await fixture.settled();
        const after = await fixture.balances();
        expect(after.tokenUsed - before.tokenUsed).toBe(0);
        expect(after.tokenRemain).toBe(before.tokenRemain);
        expect(after.userQuota).toBe(before.userQuota);
        const rows = await fixture.reservations();
        expect(rows.filter((r) => r.state !== 'settled')).toEqual([]);
        const row = (await fixture.logs()).at(-1);
        expect(Number(row.quota)).toBe(0);
        // Each channel asked once: the primary, then the fallback.
        expect({ primary: fixture.primary[upstream].requests.length - asked.primary, fallback: fixture.fallback![upstream].requests.length - asked.fallback }).toEqual({ primary: 1, fallback: 1 });
      });
    }
  }
});
