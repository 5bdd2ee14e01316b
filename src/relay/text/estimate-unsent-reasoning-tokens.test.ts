import { describe, expect, it } from 'vitest';
import type { CanonicalReasoningPart, CanonicalRequest } from '../../canonical/canonical-request.js';
import type { UpstreamTextStyle } from '../../providers/provider-request.js';
import { estimateOpaqueTokens } from '../estimate-opaque-tokens.js';
import { estimateTextTokens } from '../estimate-text-tokens.js';
import { estimateSentOpaqueTokens } from './estimate-sent-opaque-tokens.js';
import { estimateUnsentReasoningTokens } from './estimate-unsent-reasoning-tokens.js';
import { textStyles } from './text-styles.js';

/** Replayed reasoning of every kind a client hands back, each with its own text. */
const parts: CanonicalReasoningPart[] = [
  { type: 'reasoning', text: 'Anthropic signed this thinking.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h', issuer: 'anthropic' },
  { type: 'reasoning', text: 'Google signed this thought.', signature: 'CiQBAb4+ZmFrZXNpZ25hdHVyZQ==', issuer: 'google' },
  { type: 'reasoning', text: 'Nobody signed this reasoning_content.' },
  { type: 'reasoning', text: 'A summary beside Anthropic redacted thinking.', redactedData: 'EmwKAhgBEgy3va3pzixRedacted', issuer: 'anthropic' },
  { type: 'reasoning', text: 'A summary of OpenAI encrypted reasoning.', redactedData: 'gAAAAABo5LKjDoneTokenMn8b3Vc5Xz7Lk9Jh1G', issuer: 'openai' },
  { type: 'reasoning', text: 'Signed by no known issuer.', signature: 'c2lnbmVkYnlub2JvZHlrbm93bg==' },
  { type: 'reasoning', text: '', signature: 'CiQBAb4+Y2FsbHNpZ25hdHVyZQ==', issuer: 'google' },
];

/** Each part in an assistant turn of its own, between user turns. */
const request: CanonicalRequest = {
  model: 'client-model',
  system: [],
  messages: parts.flatMap((part, index) => [
    { role: 'user' as const, content: [{ type: 'text' as const, text: `Question ${index}?` }] },
    { role: 'assistant' as const, content: [part, { type: 'text' as const, text: `Answer ${index}.` }] },
  ]).concat([{ role: 'user', content: [{ type: 'text', text: 'And now?' }] }]),
  tools: [],
  stream: false,
};

const allOpaque = parts.reduce((sum, part) => sum + estimateOpaqueTokens(part.signature) + estimateOpaqueTokens(part.redactedData), 0);

/** What a formatter leaves out, as the local count takes it off: its unsent texts, and the opaque data its body lacks. */
function leftOutByFormatter(style: UpstreamTextStyle, replayReasoning: boolean): number {
  const formatted = textStyles[style].formatRequest(request, 'upstream-model', { replayReasoning, defaultMaxOutputTokens: 1024 });
  const texts = formatted.unsentReasoningTexts.reduce((sum, text) => sum + estimateTextTokens(text), 0);
  return texts + allOpaque - estimateSentOpaqueTokens(style, formatted.value);
}

describe('estimateUnsentReasoningTokens', () => {
  it.each([
    ['anthropic-messages', false],
    ['openai-responses', false],
    ['openai-chat', false],
    ['openai-chat', true],
  ] as const)('foresees what the %s formatter leaves out (replays reasoning: %s)', (style, replaysReasoning) => {
    const foreseen = estimateUnsentReasoningTokens(parts, { style, replaysReasoning });
    expect(foreseen).toBeGreaterThan(0);
    expect(foreseen).toBe(leftOutByFormatter(style, replaysReasoning));
  });

  it("takes nothing off toward Gemini, which is sent every text (its opaque data counted as sent: at most what it drops)", () => {
    expect(estimateUnsentReasoningTokens(parts, { style: 'gemini', replaysReasoning: false })).toBe(0);
    expect(textStyles.gemini.formatRequest(request, 'gemini-2.5-flash').unsentReasoningTexts).toEqual([]);
    expect(leftOutByFormatter('gemini', false)).toBeGreaterThanOrEqual(0);
  });

  it('takes off the text of a Chat client’s reasoning toward Anthropic, Responses and a Chat channel that does not replay it', () => {
    const chatReasoning: CanonicalReasoningPart[] = [{ type: 'reasoning', text: 'Step one, then step two.' }];
    const text = estimateTextTokens('Step one, then step two.');
    expect(estimateUnsentReasoningTokens(chatReasoning, { style: 'anthropic-messages', replaysReasoning: false })).toBe(text);
    expect(estimateUnsentReasoningTokens(chatReasoning, { style: 'openai-responses', replaysReasoning: false })).toBe(text);
    expect(estimateUnsentReasoningTokens(chatReasoning, { style: 'openai-chat', replaysReasoning: true })).toBe(0);
  });
});
