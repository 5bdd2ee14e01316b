import { describe, expect, it } from 'vitest';
import { formatGeminiRedactedSignature, formatGeminiThoughtSignature, parseGeminiThoughtSignature } from './map-gemini-thought-signature.js';

describe('map-gemini-thought-signature', () => {
  it('carries redacted data behind a prefix and a signature as it is, and reads each back to its field', () => {
    const redacted = formatGeminiThoughtSignature({ redactedData: 'EmwKAhgB/+=' }, []);
    expect(redacted).toBe('redacted:EmwKAhgB/+=');
    expect(parseGeminiThoughtSignature(redacted!)).toEqual({ redactedData: 'EmwKAhgB/+=' });
    expect(formatGeminiThoughtSignature({ signature: 'CiQBjz1rX' }, [])).toBe('CiQBjz1rX');
    expect(parseGeminiThoughtSignature('CiQBjz1rX')).toEqual({ signature: 'CiQBjz1rX' });
    // An OpenAI encrypted reasoning item (a Fernet token) is redacted data too.
    expect(parseGeminiThoughtSignature(formatGeminiRedactedSignature('gAAAAABenc1'))).toEqual({ redactedData: 'gAAAAABenc1' });
  });

  it('is undefined without opaque data, and keeps the redacted data of a part with both, with a warning', () => {
    expect(formatGeminiThoughtSignature({}, [])).toBeUndefined();
    const warnings: string[] = [];
    expect(formatGeminiThoughtSignature({ signature: 's', redactedData: 'r' }, warnings)).toBe('redacted:r');
    expect(warnings).toEqual(['a reasoning part with both a signature and redacted data keeps only the redacted data']);
  });
});
