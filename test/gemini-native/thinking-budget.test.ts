import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { replyAsAsked } from '../fakes/scripted-vendor-wire.js';

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

describe('thought text reaches a Gemini client only when it asked for it (includeThoughts), as Gemini answers', () => {
  const thinkingAnswer = { text: 'Forty-two.', thinking: { text: 'Let me work it out carefully.', signature: 'sig-anthropic' }, usage: { input: 10, output: 20 } };
  for (const stream of [false, true]) {
    it(`anthropic upstream that thinks, ${stream ? 'streamed' : 'whole'}: no thought parts without includeThoughts, thought parts with it`, async () => {
      const partsFor = async (includeThoughts: boolean | undefined) => {
        fixture.primary.anthropic.enqueue(replyAsAsked('anthropic', thinkingAnswer));
        const config = { thinkingConfig: { thinkingBudget: 2048, ...(includeThoughts === undefined ? {} : { includeThoughts }) }, maxOutputTokens: 8000 };
        const params = { model: modelOf.anthropic, contents: 'What is six times seven?', config };
        if (!stream) return (await fixture.sdk.gemini.models.generateContent(params)).candidates?.[0]?.content?.parts ?? [];
        const parts: { text?: string; thought?: boolean }[] = [];
        for await (const chunk of await fixture.sdk.gemini.models.generateContentStream(params)) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
        return parts;
      };
      const silent = await partsFor(undefined);
      expect(silent.filter((part) => part.thought === true)).toEqual([]);
      expect(silent.map((part) => part.text ?? '').join('')).toBe('Forty-two.');
      const shown = await partsFor(true);
      expect(shown.filter((part) => part.thought === true).map((part) => part.text).join('')).toBe('Let me work it out carefully.');
    });
  }
});
