import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked } from './responses-support.js';

/**
 * docs/behaviour.md "Billing": "Before the upstream call the gateway reserves the most the request can
 * cost: the prompt's estimated tokens × the dearest input-side price + (max_tokens or
 * default_max_output_tokens) × output price." When the client names no output limit, the reservation must
 * cover the output limit the gateway itself sends upstream.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

describe('a Responses request with reasoning.effort and no max_output_tokens to an Anthropic channel', () => {
  it.each(['low', 'medium', 'high'] as const)('effort %s: the reservation covers the max_tokens sent upstream', async (effort) => {
    fixture.primary.anthropic.enqueue(replyFor('anthropic', { text: 'ok', usage: { input: 10, output: 2 } }, false));
    const { row } = await booked(fixture, () => fixture.sdk.openai.responses.create({ model: modelOf.anthropic, input: 'Think hard', reasoning: { effort } }));
    const sentMaxTokens = (fixture.primary.anthropic.requests.at(-1)!.body as any).max_tokens as number;
    const reservation = (await fixture.reservations()).find((r) => r.id === row.request_id)!;
    const outputSide = expectedCharge({ input: 0, output: sentMaxTokens });
    expect(reservation.amount, `max_tokens ${sentMaxTokens} sent upstream (${outputSide} units of output) but ${reservation.amount} reserved`).toBeGreaterThanOrEqual(outputSide);
  });
});

describe("a request with no output limit to an Anthropic channel whose settings.max_tokens is above the site default", () => {
  let big: BillingFixture;
  beforeAll(async () => {
    big = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, channelSettings: { anthropic: { max_tokens: 16_000 } } });
  });
  afterAll(async () => big?.close());

  it.each(['openai-chat', 'openai-responses'] as const)('%s client: the channel setting is sent, and the reservation covers it', async (client) => {
    big.primary.anthropic.enqueue(replyFor('anthropic', { text: 'ok', usage: { input: 10, output: 2 } }, false));
    const send = async (): Promise<unknown> =>
      client === 'openai-chat'
        ? big.sdk.openai.chat.completions.create({ model: modelOf.anthropic, messages: [{ role: 'user', content: 'Write a lot' }] })
        : big.sdk.openai.responses.create({ model: modelOf.anthropic, input: 'Write a lot' });
    const { row } = await booked(big, send);
    expect((big.primary.anthropic.requests.at(-1)!.body as any).max_tokens).toBe(16_000);
    const reservation = (await big.reservations()).find((r) => r.id === row.request_id)!;
    expect(reservation.amount).toBeGreaterThanOrEqual(expectedCharge({ input: 0, output: 16_000 }));
  });
});
