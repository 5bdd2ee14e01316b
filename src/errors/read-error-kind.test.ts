import { describe, expect, it } from 'vitest';
import { readErrorKind, type ErrorKind } from './read-error-kind.js';

describe('readErrorKind', () => {
  it.each<[string, ErrorKind]>([
    // Anthropic's types
    ['overloaded_error', 'overloaded'],
    ['rate_limit_error', 'rate_limit'],
    ['billing_error', 'quota'],
    ['invalid_request_error', 'invalid_request'],
    ['request_too_large', 'request_too_large'],
    ['api_error', 'server'],
    ['timeout_error', 'timeout'],
    // Google's statuses
    ['UNAVAILABLE', 'overloaded'],
    ['RESOURCE_EXHAUSTED', 'rate_limit'],
    ['INVALID_ARGUMENT', 'invalid_request'],
    ['FAILED_PRECONDITION', 'invalid_request'],
    ['UNAUTHENTICATED', 'authentication'],
    ['PERMISSION_DENIED', 'permission'],
    ['NOT_FOUND', 'not_found'],
    ['DEADLINE_EXCEEDED', 'timeout'],
    ['INTERNAL', 'server'],
    // OpenAI's codes and types
    ['rate_limit_exceeded', 'rate_limit'],
    ['requests', 'rate_limit'],
    ['insufficient_quota', 'quota'],
    ['server_is_overloaded', 'overloaded'],
    ['server_error', 'server'],
    ['context_length_exceeded', 'invalid_request'],
    ['invalid_image_url', 'invalid_request'],
    ['invalid_api_key', 'authentication'],
    // The gateway's own, for a stream it could not read to its end
    ['stream_interrupted', 'connection'],
    ['invalid_chunk', 'connection'],
  ])('reads %s as %s', (code, kind) => {
    expect(readErrorKind(code)).toBe(kind);
    // The code wins over a status that says no more.
    expect(readErrorKind(code, 500)).toBe(kind);
    expect(readErrorKind(code, 400)).toBe(kind);
  });

  it('lets a generic code give way to a status that says more (OpenAI\'s 503 server_error is an overload)', () => {
    expect(readErrorKind('server_error', 503)).toBe('overloaded');
    expect(readErrorKind('server_error', 429)).toBe('rate_limit');
    expect(readErrorKind('invalid_request_error', 404)).toBe('not_found');
    expect(readErrorKind('invalid_request_error', 401)).toBe('authentication');
    expect(readErrorKind('INTERNAL', 504)).toBe('timeout');
    expect(readErrorKind('overloaded_error', 500)).toBe('overloaded');
    expect(readErrorKind('RESOURCE_EXHAUSTED', 503)).toBe('rate_limit');
  });

  it.each<[number, ErrorKind]>([
    [400, 'invalid_request'],
    [422, 'invalid_request'],
    [401, 'authentication'],
    [402, 'quota'],
    [403, 'permission'],
    [404, 'not_found'],
    [413, 'request_too_large'],
    [429, 'rate_limit'],
    [500, 'server'],
    [502, 'server'],
    [503, 'overloaded'],
    [529, 'overloaded'],
    [504, 'timeout'],
  ])('reads an unknown or missing code by its status %i as %s', (status, kind) => {
    expect(readErrorKind(undefined, status)).toBe(kind);
    expect(readErrorKind('something_new', status)).toBe(kind);
  });

  it('reads an unknown code without a status (a mid-stream error) as a server fault', () => {
    expect(readErrorKind('something_new')).toBe('server');
    expect(readErrorKind(undefined)).toBe('server');
  });
});
