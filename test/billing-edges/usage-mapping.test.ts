import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyAsAsked, type WireStyle, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { expectedCharge, modelOf, sendWithSdk, startBillingFixture, styles, type BillingFixture } from './billing-fixture.js';

/**
 * Every client style (through its SDK) × every upstream style, streamed and not: the upstream reports
 * cache reads, cache writes (where its wire has them) and reasoning; the charge follows the documented
 * formula on what the upstream reported, whatever the conversion.
 */
const usageByStyle: Record<WireStyle, WireUsage> = {
  // OpenAI chat: cached_tokens (and OpenRouter's cache_write_tokens) inside prompt_tokens, reasoning inside completion.
  'openai-chat': { input: 1000, cacheRead: 200, cacheWrite: 100, output: 300, reasoning: 50 },
  // Responses: cached_tokens inside input_tokens; reasoning inside output_tokens.
  'openai-responses': { input: 1000, cacheRead: 200, output: 300, reasoning: 50 },
  // Anthropic: input_tokens excludes cache reads/writes (the wire builder writes it that way).
  anthropic: { input: 1000, cacheRead: 200, cacheWrite: 100, output: 300 },
  // Gemini: promptTokenCount includes cached; candidates exclude thoughts.
  gemini: { input: 1000, cacheRead: 200, output: 300, reasoning: 50 },
};

describe('reported usage maps to the exact charge across every conversion', () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
  });
  afterAll(async () => fixture?.close());

  for (const client of styles) {
    for (const upstream of styles) {
      for (const stream of [true, false]) {
        it(`${client} client → ${upstream} upstream (${stream ? 'stream' : 'whole'})`, async () => {
          const usage = usageByStyle[upstream];
          fixture.primary[upstream].enqueue(replyAsAsked(upstream, { text: ['Hello', ' world'], usage }));
          const before = await fixture.balances();
          const logsBefore = (await fixture.logs()).length;
          expect(await sendWithSdk(fixture.sdk, client, modelOf[upstream], stream, 500)).toBe('Hello world');
          await fixture.settled();
          const logs = await fixture.logs();
          expect(logs.length - logsBefore).toBe(1);
          const row = logs.at(-1);
          const expected = expectedCharge(usage);
          expect({ quota: row.quota, source: row.usage_source, input: row.input_tokens, cacheRead: row.cache_read_tokens, cacheWrite: row.cache_write_tokens, output: row.output_tokens }).toEqual({
            quota: expected, source: 'upstream', input: usage.input, cacheRead: usage.cacheRead ?? 0, cacheWrite: usage.cacheWrite ?? 0, output: usage.output,
          });
          const after = await fixture.balances();
          expect(after.tokenUsed - before.tokenUsed).toBe(expected);
          expect(before.tokenRemain - after.tokenRemain).toBe(expected);
          expect(after.userUsed - before.userUsed).toBe(expected);
          const reservation = (await fixture.reservations()).find((r) => r.id === row.request_id);
          expect(reservation).toMatchObject({ state: 'settled', settled_amount: expected });
        });
      }
    }
  }
});
