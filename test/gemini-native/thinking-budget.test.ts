import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';

/**
 * Gemini's `thinkingBudget: -1` asks for dynamic thinking (ai.google.dev/gemini-api/docs/thinking: "-1
 * turns on dynamic thinking"). src/convert/anthropic-messages/format-anthropic-messages-request.ts is
 * written to carry it ("No budget, or Gemini's −1 ('dynamic', which Anthropic lacks): the effort decides,
 * medium by default"), and a Gemini upstream understands it as is.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

async function sentTo(style: 'anthropic' | 'gemini' | 'openai-responses', thinkingConfig: Record<string, unknown>) {
  const before = fixture.primary[style].requests.length;
  await fixture.sdk.gemini.models.generateContent({ model: modelOf[style], contents: 'Think about it', config: { thinkingConfig, maxOutputTokens: 8000 } });
  expect(fixture.primary[style].requests.length - before).toBe(1);
  return fixture.primary[style].requests.at(-1)!.body;
}

describe('thinkingBudget -1 (dynamic thinking)', () => {
  it('anthropic upstream: thinking is turned on (the formatter\'s documented -1 branch)', async () => {
    const sent = await sentTo('anthropic', { thinkingBudget: -1 });
    expect(sent.thinking, JSON.stringify(sent)).toMatchObject({ type: 'enabled' });
  });

  it('gemini upstream, non-streaming: thinkingConfig.thinkingBudget -1 arrives', async () => {
    const sent = await sentTo('gemini', { thinkingBudget: -1 });
    expect(sent.generationConfig?.thinkingConfig, JSON.stringify(sent)).toEqual({ thinkingBudget: -1 });
  });

  it('control: a positive budget reaches both', async () => {
    expect((await sentTo('anthropic', { thinkingBudget: 2048 })).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect((await sentTo('gemini', { thinkingBudget: 2048 })).generationConfig.thinkingConfig).toEqual({ thinkingBudget: 2048 });
  });
});
