import { describe, expect, it } from 'vitest';
import { errorDocumentFailure } from './error-document-failure.js';

describe('errorDocumentFailure', () => {
  const key = 'sk-channel-secret-key';

  it("is a 502 naming the upstream's message, the channel key redacted, not held against the channel", () => {
    expect(errorDocumentFailure({ error: { message: `bad thing ${key}` } }, key)).toEqual({ kind: 'status', status: 502, message: 'the upstream answered 2xx with an error document: bad thing ***', mayBeTheRequests: true });
    expect(errorDocumentFailure({ type: 'error', error: { type: 'overloaded_error' } }, key)).toEqual({ kind: 'status', status: 502, message: 'the upstream answered 2xx with an error document', mayBeTheRequests: true });
  });

  it("carries the key or account failure its fields name (not its message)", () => {
    expect(errorDocumentFailure({ error: { message: 'x', code: 'insufficient_quota' } }, key)).toMatchObject({ reason: 'account_dead' });
    expect(errorDocumentFailure({ error: { message: 'x', code: 'invalid_api_key' } }, key)).toMatchObject({ reason: 'key_rejected' });
    expect(errorDocumentFailure({ error: { message: 'Incorrect API key provided' } }, key)).toMatchObject({ mayBeTheRequests: true });
  });

  it('is undefined for an answer', () => {
    expect(errorDocumentFailure({ choices: [{ message: { content: 'hi' } }] }, key)).toBeUndefined();
    expect(errorDocumentFailure(undefined, key)).toBeUndefined();
  });
});
