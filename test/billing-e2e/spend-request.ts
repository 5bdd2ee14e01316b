import OpenAI, { APIError } from 'openai';
import { expect } from 'vitest';
import { estimateReservation } from '../../src/billing/estimate-reservation.js';
import type { FakeOptions } from '../fakes/fake-openai-upstream.js';
import { billingPrices } from './start-billing-fixture.js';

const maxTokens = 100;

/** A chat request whose reservation is fixed by its `max_tokens`. */
export const spendRequest = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Say hello' }], max_tokens: maxTokens };

/**
 * The prompt's admission estimate (docs/behaviour.md "Billing"), by hand: 'Say' is a letter run of 3 → 1
 * token, the space joins the next word, 'hello' is a run of 5 → ⌈5/3⌉ = 2; 3 text tokens + 4 framing.
 * (The tokenizer's exact count is 2 + 4 = 6.)
 */
export const spendPromptEstimate = 7;

/**
 * What the gateway reserves for {@link spendRequest}: the estimated prompt plus `max_tokens`, at the
 * model's prices. 7 × $3 + 100 × $15 = 1,521 $·tokens/M = 0.001521 $ × 500,000 = 760.5 → 761 quota.
 */
export const spendReservation = estimateReservation({
  promptTokens: spendPromptEstimate,
  maxOutputTokens: maxTokens,
  defaultMaxOutputTokens: 4096,
  price: { model: 'gpt-4o-mini', input: billingPrices['gpt-4o-mini'].input, output: billingPrices['gpt-4o-mini'].output, cacheRead: billingPrices['gpt-4o-mini'].cache_read },
  groupRatio: 1,
  quotaPerUnit: 500_000,
});

/** Upstream usage that costs exactly the reservation, so how many requests a balance affords does not depend on timing. */
export const usageAtReservation: Partial<FakeOptions> = { promptTokens: spendPromptEstimate, completionTokens: maxTokens };

export type SpendOutcome = { kind: 'served'; text: string } | { kind: 'refused'; status: number; error: unknown; headers: Headers | undefined };

/** Sends {@link spendRequest} (streamed or not) and reports how it ended; anything but an HTTP error answer is thrown. */
export async function sendSpendRequest(client: OpenAI, stream: boolean): Promise<SpendOutcome> {
  try {
    if (!stream) {
      const completion = await client.chat.completions.create(spendRequest);
      return { kind: 'served', text: completion.choices[0]?.message.content ?? '' };
    }
    const chunks = await client.chat.completions.create({ ...spendRequest, stream: true });
    let text = '';
    for await (const chunk of chunks) text += chunk.choices[0]?.delta.content ?? '';
    return { kind: 'served', text };
  } catch (error) {
    if (error instanceof APIError && error.status !== undefined) return { kind: 'refused', status: error.status, error: error.error, headers: error.headers };
    throw error;
  }
}

/** The OpenAI envelope every refused request must carry. */
export function insufficientQuotaEnvelope(whose: 'this API key' | 'your account') {
  return {
    message: expect.stringMatching(new RegExp(`^Insufficient quota: ${whose} cannot cover this request .+ \\(request id: [0-9a-f]+\\)$`)),
    type: 'insufficient_quota',
    param: null,
    code: 'insufficient_quota',
  };
}
