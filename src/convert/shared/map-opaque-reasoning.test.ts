import { describe, expect, it } from 'vitest';
import { formatOpaqueReasoning, isReplayableTo, parseOpaqueReasoning, toReasoningFields, type NativeOpaque } from './map-opaque-reasoning.js';

const anthropicSignature: NativeOpaque = { kind: 'signature', issuer: 'anthropic' };
const openaiEncrypted: NativeOpaque = { kind: 'redacted', issuer: 'openai' };
const googleSignature: NativeOpaque = { kind: 'signature', issuer: 'google' };

describe('map-opaque-reasoning', () => {
  it("writes a field's own vendor's value as is and any other behind a kind and issuer tag, and reads both back", () => {
    expect(formatOpaqueReasoning({ kind: 'signature', value: 'EqQB/+=', issuer: 'anthropic' }, anthropicSignature)).toBe('EqQB/+=');
    expect(parseOpaqueReasoning('EqQB/+=', anthropicSignature)).toEqual({ kind: 'signature', value: 'EqQB/+=', issuer: 'anthropic' });
    const google = formatOpaqueReasoning({ kind: 'signature', value: 'CiQB', issuer: 'google' }, anthropicSignature);
    expect(google).toBe('signature:google:CiQB');
    expect(parseOpaqueReasoning(google, anthropicSignature)).toEqual({ kind: 'signature', value: 'CiQB', issuer: 'google' });
    const redacted = formatOpaqueReasoning({ kind: 'redacted', value: 'EmwK', issuer: 'anthropic' }, openaiEncrypted);
    expect(redacted).toBe('redacted:anthropic:EmwK');
    expect(parseOpaqueReasoning(redacted, openaiEncrypted)).toEqual({ kind: 'redacted', value: 'EmwK', issuer: 'anthropic' });
  });

  it('reads values given out before issuers were tagged: a signature of no known issuer, redacted data by its form', () => {
    expect(parseOpaqueReasoning('signature:EqQB', openaiEncrypted)).toEqual({ kind: 'signature', value: 'EqQB', issuer: undefined });
    expect(parseOpaqueReasoning('redacted:gAAAAABenc', anthropicSignature)).toEqual({ kind: 'redacted', value: 'gAAAAABenc', issuer: 'openai' });
    expect(parseOpaqueReasoning('redacted:EmwK', anthropicSignature)).toEqual({ kind: 'redacted', value: 'EmwK', issuer: 'anthropic' });
    // OpenAI's encrypted reasoning once written untagged into an Anthropic client's redacted_thinking.
    expect(parseOpaqueReasoning('gAAAAABenc', { kind: 'redacted', issuer: 'anthropic' })).toEqual({ kind: 'redacted', value: 'gAAAAABenc', issuer: 'openai' });
  });

  it("carries the thinking an Anthropic signature signs beside it outside Anthropic's field, and reads both back", () => {
    const thinking = 'Weather first: call get_weather.\n\n  Then — ünïcode: a:b.';
    const value = formatOpaqueReasoning({ kind: 'signature', value: 'EqQB/+=', issuer: 'anthropic', thinking }, googleSignature);
    expect(value).toBe(`thinking:anthropic:EqQB/+=:${Buffer.from(thinking).toString('base64')}`);
    const parsed = parseOpaqueReasoning(value, googleSignature);
    expect(parsed).toEqual({ kind: 'signature', value: 'EqQB/+=', issuer: 'anthropic', thinking });
    expect(parseOpaqueReasoning(formatOpaqueReasoning({ kind: 'signature', value: 'EqQB', issuer: 'anthropic', thinking }, openaiEncrypted), openaiEncrypted)).toEqual({ kind: 'signature', value: 'EqQB', issuer: 'anthropic', thinking });
    // Spread over a replayed reasoning part, its text replaces whatever the client handed back.
    expect({ type: 'reasoning', text: 'Weather first (merged, trimmed)', ...toReasoningFields(parsed) }).toEqual({ type: 'reasoning', text: thinking, signature: 'EqQB/+=', issuer: 'anthropic' });
  });

  it("writes the thinking only where it is needed: not in Anthropic's own field, nor for empty thinking or another vendor's signature", () => {
    expect(formatOpaqueReasoning({ kind: 'signature', value: 'EqQB', issuer: 'anthropic', thinking: 'text' }, anthropicSignature)).toBe('EqQB');
    expect(formatOpaqueReasoning({ kind: 'signature', value: 'EqQB', issuer: 'anthropic', thinking: '' }, googleSignature)).toBe('signature:anthropic:EqQB');
    expect(formatOpaqueReasoning({ kind: 'signature', value: 'CiQB', issuer: 'google', thinking: 'text' }, anthropicSignature)).toBe('signature:google:CiQB');
    expect(formatOpaqueReasoning({ kind: 'redacted', value: 'EmwK', issuer: 'anthropic', thinking: 'text' }, googleSignature)).toBe('redacted:anthropic:EmwK');
  });

  it('reads a signature given out without its thinking as before: the replayed text stays', () => {
    const parsed = parseOpaqueReasoning('signature:anthropic:EqQB', googleSignature);
    expect(parsed).toEqual({ kind: 'signature', value: 'EqQB', issuer: 'anthropic' });
    expect({ text: 'replayed', ...toReasoningFields(parsed) }).toEqual({ text: 'replayed', signature: 'EqQB', issuer: 'anthropic' });
    // A thinking tag cut short of its text is a signature alone.
    expect(parseOpaqueReasoning('thinking:anthropic:EqQB', googleSignature)).toEqual({ kind: 'signature', value: 'EqQB', issuer: 'anthropic' });
  });

  it('lets opaque reasoning go back only to its issuer, or anywhere when the issuer is not known', () => {
    expect(isReplayableTo('google', 'anthropic')).toBe(false);
    expect(isReplayableTo('anthropic', 'anthropic')).toBe(true);
    expect(isReplayableTo(undefined, 'google')).toBe(true);
  });
});
