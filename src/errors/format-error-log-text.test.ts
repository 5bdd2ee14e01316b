import { describe, expect, it } from 'vitest';
import { formatErrorLogText } from './format-error-log-text.js';
import { GatewayError } from './gateway-error.js';

describe('formatErrorLogText', () => {
  it("logs the client's message, with the upstream's own words beside it when the client was not told them", () => {
    expect(formatErrorLogText(new GatewayError('upstream_error', 'Could not reach the upstream.'))).toBe('Could not reach the upstream.');
    expect(formatErrorLogText(new GatewayError('upstream_credentials_refused', 'The channel was refused.', { logDetail: 'Incorrect API key provided: sk-***.' }))).toBe('The channel was refused. The upstream said: Incorrect API key provided: sk-***.');
  });
});
