import { describe, expect, it } from 'vitest';
import { isErrorDocument } from './is-error-document.js';

describe('isErrorDocument', () => {
  it('is true for an error object with no result', () => {
    expect(isErrorDocument({ error: { message: 'quota exhausted', type: 'insufficient_quota' } })).toBe(true);
    expect(isErrorDocument({ error: { message: 'x' }, data: null })).toBe(true);
  });

  it("is true for Anthropic's and Gemini's error envelopes", () => {
    expect(isErrorDocument({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toBe(true);
    expect(isErrorDocument({ error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } })).toBe(true);
  });

  it('is false for answers that carry a result, a null error, or are not objects', () => {
    expect(isErrorDocument({ error: { message: 'partial' }, data: [] })).toBe(false);
    expect(isErrorDocument({ object: 'list', data: [{ embedding: [0] }], error: null })).toBe(false);
    expect(isErrorDocument({ choices: [], error: { message: 'x' } })).toBe(false);
    expect(isErrorDocument({ type: 'message', content: [], error: { message: 'x' } })).toBe(false);
    expect(isErrorDocument({ candidates: [], error: { message: 'x' } })).toBe(false);
    // A failed Responses answer is an answer (its `status` tells), not an error document.
    expect(isErrorDocument({ object: 'response', status: 'failed', output: [], error: { message: 'x' } })).toBe(false);
    expect(isErrorDocument({ error: 'a string' })).toBe(false);
    expect(isErrorDocument([{ error: {} }])).toBe(false);
    expect(isErrorDocument(null)).toBe(false);
  });
});
