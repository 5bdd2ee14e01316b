import { describe, expect, it } from 'vitest';
import { errorDocumentFailure, errorDocumentFailureIn, isErrorDocument } from './is-error-document.js';

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

describe('errorDocumentFailure', () => {
  const key = 'sk-channel-secret-key';

  it("is a 502 naming the upstream's message, the channel key redacted", () => {
    expect(errorDocumentFailure({ error: { message: `bad key ${key}` } }, key)).toEqual({ kind: 'status', status: 502, message: 'the upstream answered 2xx with an error document: bad key ***' });
    expect(errorDocumentFailure({ type: 'error', error: { type: 'overloaded_error' } }, key)).toEqual({ kind: 'status', status: 502, message: 'the upstream answered 2xx with an error document' });
  });

  it('is undefined for an answer', () => {
    expect(errorDocumentFailure({ choices: [{ message: { content: 'hi' } }] }, key)).toBeUndefined();
    expect(errorDocumentFailure(undefined, key)).toBeUndefined();
  });

  it('reads bytes only when they hold an "error" key, and not JSON as no failure', () => {
    expect(errorDocumentFailureIn(Buffer.from('{"error":{"message":"x"}}'), key)).toMatchObject({ status: 502 });
    expect(errorDocumentFailureIn(Buffer.from('{"choices":[{"message":{"content":"no error here"}}]}'), key)).toBeUndefined();
    expect(errorDocumentFailureIn(Buffer.from('"error" but not JSON {'), key)).toBeUndefined();
  });
});
