import { describe, expect, it } from 'vitest';
import { formatOpaqueReasoning, isReplayableTo, parseOpaqueReasoning, type NativeOpaque } from './map-opaque-reasoning.js';

const anthropicSignature: NativeOpaque = { kind: 'signature', issuer: 'anthropic' };
const openaiEncrypted: NativeOpaque = { kind: 'redacted', issuer: 'openai' };

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

  it('lets opaque reasoning go back only to its issuer, or anywhere when the issuer is not known', () => {
    expect(isReplayableTo('google', 'anthropic')).toBe(false);
    expect(isReplayableTo('anthropic', 'anthropic')).toBe(true);
    expect(isReplayableTo(undefined, 'google')).toBe(true);
  });
});
