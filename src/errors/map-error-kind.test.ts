import { describe, expect, it } from 'vitest';
import { mapErrorKind } from './map-error-kind.js';
import { readErrorKind, type ErrorKind } from './read-error-kind.js';
import { formatOpenaiErrorWords } from './format-openai-error-words.js';

const kinds: ErrorKind[] = ['invalid_request', 'request_too_large', 'not_found', 'rate_limit', 'overloaded', 'timeout', 'server'];

describe('mapErrorKind', () => {
  it('names an overload, a rate limit and a server fault in each style\'s own words', () => {
    expect(mapErrorKind('overloaded')).toEqual({
      openai: { type: 'server_error', code: 'server_is_overloaded' },
      openaiResponses: 'server_error',
      anthropic: 'overloaded_error',
      gemini: { status: 'UNAVAILABLE', code: 503 },
    });
    expect(mapErrorKind('rate_limit')).toEqual({
      openai: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
      openaiResponses: 'rate_limit_exceeded',
      anthropic: 'rate_limit_error',
      gemini: { status: 'RESOURCE_EXHAUSTED', code: 429 },
    });
    expect(mapErrorKind('server')).toMatchObject({ openai: { type: 'server_error', code: null }, anthropic: 'api_error', gemini: { status: 'INTERNAL', code: 500 } });
  });

  it.each(kinds)('gives the %s kind words that each style reads back as the same kind', (kind) => {
    const words = mapErrorKind(kind);
    expect(readErrorKind(words.anthropic)).toBe(kind);
    // Google and OpenAI have fewer words than there are kinds: the nearest one, read back by its status.
    expect(readErrorKind(words.gemini.status, words.gemini.code)).toBe(kind === 'request_too_large' ? 'invalid_request' : kind);
  });

  it('tells an upstream\'s account out of credit (the channel\'s) as a server fault, in no style\'s quota words', () => {
    expect(mapErrorKind('quota')).toEqual(mapErrorKind('server'));
    expect(mapErrorKind('quota').openai.type).not.toBe('insufficient_quota');
    expect(mapErrorKind('quota').anthropic).not.toBe('billing_error');
  });

  it.each<ErrorKind>(['authentication', 'permission'])('tells an upstream\'s %s refusal (the channel\'s key) as a server fault, in no style\'s words for a refused key', (kind) => {
    expect(mapErrorKind(kind)).toEqual(mapErrorKind('server'));
    expect(mapErrorKind(kind).openai.code).not.toBe('invalid_api_key');
  });

  it('names a failure to get an answer (connection) a server fault, with the 502 it is', () => {
    expect(mapErrorKind('connection')).toEqual({
      openai: { type: 'server_error', code: null },
      openaiResponses: 'server_error',
      anthropic: 'api_error',
      gemini: { status: 'INTERNAL', code: 502 },
    });
  });
});

describe('formatOpenaiErrorWords', () => {
  it('replaces other vendors\' codes with OpenAI\'s and keeps OpenAI\'s own', () => {
    expect(formatOpenaiErrorWords('overloaded_error')).toEqual({ type: 'server_error', code: 'server_is_overloaded' });
    expect(formatOpenaiErrorWords('UNAVAILABLE')).toEqual({ type: 'server_error', code: 'server_is_overloaded' });
    expect(formatOpenaiErrorWords('RESOURCE_EXHAUSTED')).toEqual({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(formatOpenaiErrorWords('vector_store_timeout')).toEqual({ type: 'server_error', code: 'vector_store_timeout' });
    expect(formatOpenaiErrorWords(undefined, 400)).toEqual({ type: 'invalid_request_error', code: null });
  });

  it('keeps the gateway\'s own stream codes, with OpenAI\'s server_error type', () => {
    expect(formatOpenaiErrorWords('stream_interrupted')).toEqual({ type: 'server_error', code: 'stream_interrupted' });
    expect(formatOpenaiErrorWords('invalid_chunk')).toEqual({ type: 'server_error', code: 'invalid_chunk' });
  });

  it('never hands an upstream\'s refusal of the channel\'s key to an OpenAI client as a refused key', () => {
    expect(formatOpenaiErrorWords('invalid_api_key', 401)).toEqual({ type: 'server_error', code: null });
    expect(formatOpenaiErrorWords('authentication_error')).toEqual({ type: 'server_error', code: null });
    expect(formatOpenaiErrorWords('PERMISSION_DENIED', 403)).toEqual({ type: 'server_error', code: null });
    expect(formatOpenaiErrorWords(undefined, 401)).toEqual({ type: 'server_error', code: null });
  });
});
