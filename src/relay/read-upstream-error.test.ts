import { describe, expect, it } from 'vitest';
import { readUpstreamErrorBody } from './read-upstream-error.js';

describe('readUpstreamErrorBody', () => {
  it('reads each vendor\'s own error code: Anthropic\'s type, Google\'s status, OpenAI\'s code or else its type', () => {
    expect(readUpstreamErrorBody('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 529)).toMatchObject({ message: 'Overloaded', code: 'overloaded_error' });
    expect(readUpstreamErrorBody('{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}', 503)).toMatchObject({ code: 'UNAVAILABLE' });
    expect(readUpstreamErrorBody('{"error":{"message":"Slow down","type":"requests","param":null,"code":"rate_limit_exceeded"}}', 429)).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(readUpstreamErrorBody('{"error":{"message":"Oops","type":"server_error","param":null,"code":null}}', 500)).toMatchObject({ code: 'server_error' });
  });

  it('reads no code from a body without one', () => {
    expect(readUpstreamErrorBody('<html>Bad Gateway</html>', 502).code).toBeUndefined();
    expect(readUpstreamErrorBody('{"error":"plain"}', 500).code).toBeUndefined();
  });
});
