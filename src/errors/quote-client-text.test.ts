import { describe, expect, it } from 'vitest';
import { maxQuotedChars, quoteClientText } from './quote-client-text.js';

describe('quoteClientText', () => {
  it('quotes text up to the bound whole', () => {
    expect(quoteClientText('gpt-realtime')).toBe('gpt-realtime');
    const atBound = 'm'.repeat(maxQuotedChars);
    expect(quoteClientText(atBound)).toBe(atBound);
  });

  it('cuts longer text to the bound and says how much was cut', () => {
    expect(quoteClientText(`${'a'.repeat(maxQuotedChars)}${'b'.repeat(100_000)}`)).toBe(`${'a'.repeat(maxQuotedChars)}… (100,000 more characters)`);
    expect(quoteClientText('x'.repeat(maxQuotedChars + 1))).toBe(`${'x'.repeat(maxQuotedChars)}… (1 more character)`);
  });

  it('never splits a surrogate pair at the cut', () => {
    const text = `${'a'.repeat(maxQuotedChars - 1)}😀${'z'.repeat(10)}`;
    expect(quoteClientText(text)).toBe(`${'a'.repeat(maxQuotedChars - 1)}… (12 more characters)`);
  });
});
