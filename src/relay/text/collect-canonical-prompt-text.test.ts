import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import { estimatedTokensPerImage } from '../count-tokens.js';
import { estimatePromptTokens } from '../estimate-prompt-tokens.js';
import { collectCanonicalPromptText } from './collect-canonical-prompt-text.js';

describe('collectCanonicalPromptText', () => {
  it('counts the images of tool results as the images of user turns (a Chat upstream gets them in a user message)', () => {
    const image = { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } } as const;
    const request: CanonicalRequest = {
      model: 'm',
      system: [],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Show the radar' }, image] },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'call_1', name: 'radar', arguments: '{}' }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', content: [{ type: 'text', text: 'radar:' }, image, image] }] },
      ],
      tools: [],
      stream: false,
    };
    const prompt = collectCanonicalPromptText(request);
    expect(prompt.imageTokens).toBe(3 * estimatedTokensPerImage);
    expect(prompt.texts[0]).toContain('radar:');
  });

  it("counts replayed reasoning's opaque data — a thinking signature, redacted or encrypted reasoning — a token per 4 characters beside its text", async () => {
    const request = (reasoning: CanonicalRequest['messages'][number]['content']): CanonicalRequest => ({
      model: 'm',
      system: [],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        { role: 'assistant', content: reasoning } as CanonicalRequest['messages'][number],
      ],
      tools: [],
      stream: false,
    });
    const bare = collectCanonicalPromptText(request([{ type: 'reasoning', text: 'Look it up.' }]));
    const signed = collectCanonicalPromptText(request([{ type: 'reasoning', text: 'Look it up.', signature: 's'.repeat(40_000) }]));
    const redacted = collectCanonicalPromptText(request([{ type: 'reasoning', text: '', redactedData: 'r'.repeat(4_001) }]));
    expect(signed.texts).toEqual(bare.texts);
    expect(signed.extraTokens - bare.extraTokens).toBe(10_000);
    // Told apart, so a request that leaves it out is counted without it (estimate-sent-opaque-tokens.ts).
    expect([bare.opaqueTokens, signed.opaqueTokens]).toEqual([0, 10_000]);
    expect(redacted.extraTokens - collectCanonicalPromptText(request([{ type: 'reasoning', text: '' }])).extraTokens).toBe(1_001);
    // In the reservation's estimate, and in the local count an upstream without usage is billed.
    const estimate = estimatePromptTokens(signed);
    expect(estimate.estimatedPromptTokens - estimatePromptTokens(bare).estimatedPromptTokens).toBe(10_000);
    await expect(estimate.countPromptTokens()).resolves.toBeGreaterThan(10_000);
  });
});
