import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../fakes/scripted-upstream.js';
import { errorReply, replyAsAsked, streamErrorEvent } from '../fakes/scripted-vendor-wire.js';
import { waitFor } from '../billing-e2e/read-billing-state.js';
import { allDialects } from '../support/test-databases.js';
import { buildClientRequest, expectedCharge, modelOf, promptTokensExact, sendWithSdk, startBillingFixture, tokens, type BillingFixture } from './billing-fixture.js';

/**
 * A channel's `used_quota` and `request_count` count the charges of the requests billed for its answer
 * (docs/behaviour.md "Billing"), however the settle comes: after a failover, late from the settle retry
 * queue, or for an answer that failed after its upstream produced output (no channel served, but that
 * channel's output is what the request paid for). On every database.
 */
describe.each(allDialects)('channel used quota on $dialect', ({ dialect, available }) => {
  let fixture: BillingFixture;

  beforeAll(async () => {
    if (!available) return;
    fixture = await startBillingFixture({ dialect, fallbacks: true, tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '1' } });
  });
  afterAll(async () => {
    if (available) await fixture.close();
  });

  /** What each channel's counters moved by while `run` ran, once every settle went through. */
  async function counted(run: () => Promise<unknown>): Promise<{ charged: number; channels: Record<string, { used: number; requests: number }> }> {
    await fixture.settled();
    const before = await fixture.channels();
    const spentBefore = (await fixture.balances()).tokenUsed;
    await run();
    await fixture.settled();
    await waitFor('the settle retries to go through', async () => (fixture.gateway.gateway.services.relay.settleRetries.size === 0 ? true : undefined));
    const after = await fixture.channels();
    const channels: Record<string, { used: number; requests: number }> = {};
    for (const row of after) {
      const earlier = before.find((channel) => channel.id === row.id)!;
      if (row.used_quota !== earlier.used_quota || row.request_count !== earlier.request_count) {
        channels[row.name] = { used: row.used_quota - earlier.used_quota, requests: row.request_count - earlier.request_count };
      }
    }
    return { charged: (await fixture.balances()).tokenUsed - spentBefore, channels };
  }

  it.skipIf(!available)('a stream served after failover and settled late, from the retry queue, counts on the channel that served it', async () => {
    const ledger = fixture.gateway.gateway.services.relay.ledger;
    const settle = ledger.settle;
    let failures = 0;
    // The database cannot take the request's own settle: the retry queue makes it half a second later.
    ledger.settle = async (...args) => {
      ledger.settle = settle;
      failures += 1;
      throw new Error('connection lost');
    };
    try {
      fixture.primary['openai-chat'].enqueue(errorReply('openai-chat', 500, 'busy'));
      fixture.fallback!['openai-chat'].enqueue(replyAsAsked('openai-chat', { text: ['Hello', ' there'], usage: { input: 120, cacheRead: 20, output: 45 } }));
      const { charged, channels } = await counted(async () => expect(await sendWithSdk(fixture.sdk, 'openai-chat', modelOf['openai-chat'], true, 200)).toBe('Hello there'));
      expect(failures).toBe(1);
      expect(charged).toBe(expectedCharge({ input: 120, cacheRead: 20, output: 45 }));
      expect(channels).toEqual({ 'fallback-openai-chat': { used: charged, requests: 1 } });
    } finally {
      ledger.settle = settle;
    }
  });

  it.skipIf(!available)('an in-band failure billed for what it produced, the next channel refusing, counts on the channel that produced it', async () => {
    const halfText = 'A long half answer that never reached anyone';
    const half = { data: { candidates: [{ content: { role: 'model', parts: [{ text: halfText }] }, index: 0 }], modelVersion: 'gemini-2.5-flash' } };
    fixture.primary.gemini.enqueue({ sse: [half, streamErrorEvent('gemini', 'The model is overloaded.')], crlf: true });
    fixture.fallback!.gemini.enqueue(errorReply('gemini', 500, 'busy'));
    const rowsBefore = (await fixture.logs()).length;
    const { charged, channels } = await counted(() => sendWithSdk(fixture.sdk, 'openai-chat', modelOf.gemini, false, 500).catch(() => undefined));
    expect(charged).toBe(expectedCharge({ input: promptTokensExact(), output: tokens(halfText) }));
    expect(channels).toEqual({ 'primary-gemini': { used: charged, requests: 1 } });
    // The log row names the channel billed, not the fallback that only refused, so a channel's rows add up
    // to its used quota (the logs audit); both attempts are still listed.
    const rows = (await fixture.logs()).slice(rowsBefore);
    expect(rows.map((row: { channel_id: number | null; quota: number }) => ({ channel: row.channel_id, quota: row.quota }))).toEqual([{ channel: fixture.channelIds['primary-gemini'], quota: charged }]);
    expect(JSON.parse((rows[0] as { attempts: string }).attempts)).toHaveLength(2);
  });

  it.skipIf(!available)('a client that left after the upstream answered 200 pays its prompt, counted on that channel', async () => {
    const headersThenHang: ScriptedReply = { headers: { 'content-type': 'application/json' }, raw: ['{"id":"x",'], ending: 'hang' };
    fixture.primary['openai-chat'].enqueue(headersThenHang);
    const { charged, channels } = await counted(async () => {
      const controller = new AbortController();
      const request = buildClientRequest(fixture.gateway.url, 'openai-chat', modelOf['openai-chat'], false, 100, controller.signal);
      const sent = fetch(request.url, request.init).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 400));
      controller.abort();
      await sent;
      // USAGE_WAIT_SECONDS=1: the gateway reads on for a usage report that never comes, then settles.
      await new Promise((resolve) => setTimeout(resolve, 1300));
    });
    expect(charged).toBe(expectedCharge({ input: promptTokensExact(), output: 0 }));
    expect(channels).toEqual({ 'primary-openai-chat': { used: charged, requests: 1 } });
  });

  it.skipIf(!available)('a request no upstream answered costs nothing and counts on no channel', async () => {
    fixture.primary.anthropic.enqueue(errorReply('anthropic', 500, 'busy'));
    fixture.fallback!.anthropic.enqueue(errorReply('anthropic', 503, 'busy'));
    const { charged, channels } = await counted(() => sendWithSdk(fixture.sdk, 'anthropic', modelOf.anthropic, true, 503).catch(() => undefined));
    expect({ charged, channels }).toEqual({ charged: 0, channels: {} });
  });
});
