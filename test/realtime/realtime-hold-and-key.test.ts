/**
 * Realtime settings and secrets (docs/behaviour.md "Realtime"): `realtime_hold_input_tokens` sizes the hold
 * a session keeps, so a key that covers the smaller hold but not the default one is served; and a text frame
 * of the upstream that quotes the channel's key reaches the client with the key masked. Through the openai
 * SDK's `OpenAIRealtimeWS` behind the TLS front.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeRealtimeUpstream } from '../fakes/fake-realtime-upstream.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { openSdkSession, startRealtimeSdkGateway, type RealtimeSdkGateway } from './realtime-sdk-gateway.js';

const channelKey = 'sk-up-realtime-secret-0123456789';
const quotaPerUnit = 500_000;
const price = { input: 4, output: 16 };
const holdInputTokens = 1_000;
/** The hold with the setting, and without it (16,384 input tokens), each with the 4,096-token output budget. */
const smallHold = (holdInputTokens * price.input + 4_096 * price.output) * (quotaPerUnit / 1_000_000);
const defaultHold = (16_384 * price.input + 4_096 * price.output) * (quotaPerUnit / 1_000_000);
const modestKey = `sk-${'m'.repeat(48)}`;

let stack: RealtimeSdkGateway;
let upstream: FakeRealtimeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  stack = await startRealtimeSdkGateway({
    channelKey,
    config: {
      realtime_hold_input_tokens: holdInputTokens,
      prices: { 'gpt-realtime': price },
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      // Enough for the small hold and a few responses, far from the default hold.
      tokens: [{ name: 'modest-key', user: 'u', key: modestKey, quota: smallHold + 1_000, expires_at: 0, enabled: true }],
    },
  });
  ({ upstream, gateway } = stack);
}, 30_000);
afterAll(() => stack.close(), 30_000);

const openSession = () => openSdkSession(stack.front, modestKey);

describe('Realtime hold size and channel key', () => {
  it('holds realtime_hold_input_tokens of input: a key short of the default hold is served and charged the response', async () => {
    expect(smallHold + 1_000).toBeLessThan(defaultHold);
    const session = await openSession();
    const held = await gateway.gateway.services.database.db.selectFrom('quota_reservations').select(['amount', 'state']).where('state', '=', 'reserved').execute();
    expect(held.map((row) => Number(row.amount))).toEqual([smallHold]);
    session.rt.send({ type: 'response.create' });
    await expect.poll(() => session.events.some((event) => event.type === 'response.done'), { timeout: 5_000 }).toBe(true);
    session.rt.close();
    await session.closed;
    await gateway.settled();
    const token = await gateway.gateway.services.database.db.selectFrom('tokens').select('used_quota').where('name', '=', 'modest-key').executeTakeFirstOrThrow();
    // The fake's default response: 120 input (20 of them cached, at the input price here) and 30 output tokens.
    expect(Number(token.used_quota)).toBe((120 * price.input + 30 * price.output) * (quotaPerUnit / 1_000_000));
  });

  it("masks the channel's key in an upstream text frame that quotes it", async () => {
    upstream.setDeltas(['The key is ', `${channelKey}.`]);
    const session = await openSession();
    session.rt.send({ type: 'response.create' });
    await expect.poll(() => session.events.some((event) => event.type === 'response.done'), { timeout: 5_000 }).toBe(true);
    const text = session.events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta).join('');
    expect(text).toBe('The key is ***.');
    expect(JSON.stringify(session.events)).not.toContain(channelKey);
    session.rt.close();
    await session.closed;
  });
});
