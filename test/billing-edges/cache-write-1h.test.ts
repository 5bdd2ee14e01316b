import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyAsAsked, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { modelOf, quotaPerUnit, sendWithSdk, startBillingFixture, styles, type BillingFixture } from './billing-fixture.js';

/**
 * Anthropic bills writes to its 1-hour prompt cache at 2× the input price and 5-minute writes at 1.25×
 * (new-api-behaviour.md §10.2: gateways that bill both alike). An Anthropic upstream reports the split in
 * `usage.cache_creation` of message_start (streamed) or of the message (whole); message_delta carries only
 * the total. Each client style, through its SDK, is charged the 1-hour writes at `cache_write_1h` and the
 * rest of the writes at `cache_write`, and the log row records the split.
 */
const price = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75, cache_write_1h: 6 };
const usage: WireUsage = { input: 1000, cacheRead: 200, cacheWrite: 300, cacheWrite1h: 120, output: 50 };

/** The formula in exact integers: $ per 1M tokens ×1000 (prices have at most two decimals here). */
function expected(): number {
  const plain = usage.input - 200 - 300;
  const milli = plain * 3000 + 200 * 300 + (300 - 120) * 3750 + 120 * 6000 + usage.output * 15000;
  // milli/1000 $·tokens/M → / 1e6 $ → × quotaPerUnit; rounded half up.
  const numerator = BigInt(milli) * BigInt(quotaPerUnit);
  const denominator = 1_000n * 1_000_000n;
  return Number((2n * numerator + denominator) / (2n * denominator));
}

describe("Anthropic's 1-hour cache writes are billed at their own price", () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, extraPrice: { cache_write_1h: price.cache_write_1h } });
  });
  afterAll(async () => fixture?.close());

  it('the formula gives a different charge than billing every write at cache_write, so the test can tell them apart', () => {
    // 1,500 + 60 + 675 + 720 + 750 = 3,705 $·tokens/M × 0.5 = 1,852.5 → 1,853; all writes at 3.75: 3,615 → 1,808.
    expect(expected()).toBe(1853);
  });

  for (const client of styles) {
    for (const stream of [true, false]) {
      it(`${client} client → Anthropic upstream (${stream ? 'stream' : 'whole'})`, async () => {
        fixture.primary.anthropic.enqueue(replyAsAsked('anthropic', { text: ['Hello', ' world'], usage }));
        const before = await fixture.balances();
        expect(await sendWithSdk(fixture.sdk, client, modelOf.anthropic, stream, 500)).toBe('Hello world');
        await fixture.settled();
        const row = (await fixture.logs()).at(-1);
        expect({ quota: Number(row.quota), cacheWrite: Number(row.cache_write_tokens), cacheWrite1h: Number(row.cache_write_1h_tokens), source: row.usage_source }).toEqual({
          quota: expected(), cacheWrite: 300, cacheWrite1h: 120, source: 'upstream',
        });
        const after = await fixture.balances();
        expect(after.tokenUsed - before.tokenUsed).toBe(expected());
        expect(after.userUsed - before.userUsed).toBe(expected());
      });
    }
  }
});
