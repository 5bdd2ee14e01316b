import { describe, expect, it } from 'vitest';
import { formatGeminiOpaque, formatGeminiThoughtSignature, parseGeminiThoughtSignature } from './map-gemini-thought-signature.js';

describe('map-gemini-thought-signature', () => {
  it("writes Gemini's signatures as they are and other vendors' data behind a tag naming kind and issuer, and reads each back", () => {
    expect(formatGeminiThoughtSignature({ signature: 'CiQBjz1rX', issuer: 'google' }, [])).toBe('CiQBjz1rX');
    expect(parseGeminiThoughtSignature('CiQBjz1rX')).toEqual({ kind: 'signature', value: 'CiQBjz1rX', issuer: 'google' });
    const redacted = formatGeminiThoughtSignature({ redactedData: 'EmwKAhgB/+=', issuer: 'anthropic' }, []);
    expect(redacted).toBe('redacted:anthropic:EmwKAhgB/+=');
    expect(parseGeminiThoughtSignature(redacted!)).toEqual({ kind: 'redacted', value: 'EmwKAhgB/+=', issuer: 'anthropic' });
    const claude = formatGeminiThoughtSignature({ signature: 'EqQBCgIY', issuer: 'anthropic' }, []);
    expect(claude).toBe('signature:anthropic:EqQBCgIY');
    expect(parseGeminiThoughtSignature(claude!)).toEqual({ kind: 'signature', value: 'EqQBCgIY', issuer: 'anthropic' });
    expect(parseGeminiThoughtSignature(formatGeminiOpaque({ kind: 'redacted', value: 'gAAAAABenc1', issuer: 'openai' }))).toEqual({ kind: 'redacted', value: 'gAAAAABenc1', issuer: 'openai' });
  });

  it('reads redacted data given out before issuers were tagged: a Fernet token is OpenAI\'s, anything else Anthropic\'s', () => {
    expect(parseGeminiThoughtSignature('redacted:gAAAAABenc1')).toEqual({ kind: 'redacted', value: 'gAAAAABenc1', issuer: 'openai' });
    expect(parseGeminiThoughtSignature('redacted:EmwKAhgB')).toEqual({ kind: 'redacted', value: 'EmwKAhgB', issuer: 'anthropic' });
  });

  it('is undefined without opaque data, and keeps the redacted data of a part with both, with a warning', () => {
    expect(formatGeminiThoughtSignature({}, [])).toBeUndefined();
    const warnings: string[] = [];
    expect(formatGeminiThoughtSignature({ signature: 's', redactedData: 'r', issuer: 'anthropic' }, warnings)).toBe('redacted:anthropic:r');
    expect(warnings).toEqual(['a reasoning part with both a signature and redacted data keeps only the redacted data']);
  });
});
