import { describe, expect, it } from 'vitest';
import { mapInBandErrorStatus } from './map-in-band-error-status.js';

describe('mapInBandErrorStatus', () => {
  it('maps the codes that say the request is at fault to the status its refusal would have had', () => {
    expect(mapInBandErrorStatus('invalid_request_error')).toBe(400);
    expect(mapInBandErrorStatus('INVALID_ARGUMENT')).toBe(400);
    expect(mapInBandErrorStatus('invalid_prompt')).toBe(400);
    expect(mapInBandErrorStatus('context_length_exceeded')).toBe(400);
    expect(mapInBandErrorStatus('request_too_large')).toBe(413);
  });

  it('leaves the channel\'s failures (overloaded, server, rate limit, unknown, none) to fail over', () => {
    for (const code of ['overloaded_error', 'api_error', 'server_error', 'rate_limit_exceeded', 'rate_limit_error', 'UNAVAILABLE', 'RESOURCE_EXHAUSTED', 'INTERNAL', 'FAILED_PRECONDITION', 'vector_store_timeout', 'stream_interrupted', 'invalid_chunk', undefined]) {
      expect(mapInBandErrorStatus(code)).toBeUndefined();
    }
  });
});
