import { describe, expect, it } from 'vitest';
import { GatewayError, statusForCode, type GatewayErrorCode } from './gateway-error.js';
import { renderError } from './render-error.js';

describe('statusForCode', () => {
  it.each<[GatewayErrorCode, number]>([
    ['invalid_json', 400],
    ['model_not_found', 400],
    ['missing_api_key', 401],
    ['invalid_api_key', 401],
    ['token_expired', 401],
    ['token_disabled', 401],
    ['insufficient_quota', 402],
    ['user_disabled', 403],
    ['model_not_allowed', 403],
    ['channel_pin_forbidden', 403],
    ['route_not_found', 404],
    ['already_exists', 409],
    ['body_too_large', 413],
    ['unsupported_media_type', 415],
    ['rate_limited', 429],
    ['internal_error', 500],
    ['not_implemented', 501],
    ['upstream_error', 502],
    ['upstream_credentials_refused', 502],
    ['upstream_out_of_credit', 502],
    ['no_available_channel', 503],
    ['upstream_timeout', 504],
  ])('maps %s to %i', (code, status) => {
    expect(statusForCode(code)).toBe(status);
    expect(new GatewayError(code, 'x').status).toBe(status);
  });

  it('lets an error override the status of its code (an upstream keeps its own)', () => {
    expect(new GatewayError('upstream_error', 'x', { status: 529 }).status).toBe(529);
  });
});

describe('renderError', () => {
  const requestId = 'req123';

  it('renders the OpenAI envelope with type, param and the code OpenAI clients know', () => {
    const rendered = renderError(new GatewayError('missing_api_key', 'No API key provided.'), 'openai', requestId);
    expect(rendered).toEqual({
      status: 401,
      body: { error: { message: 'No API key provided. (request id: req123)', type: 'authentication_error', param: null, code: 'invalid_api_key' } },
    });
    const withParam = renderError(new GatewayError('model_not_allowed', 'nope', { param: 'model' }), 'openai', requestId);
    expect(withParam.body).toMatchObject({ error: { type: 'permission_error', param: 'model', code: 'model_not_allowed' } });
  });

  it('renders the Anthropic envelope with the type its SDK maps from the status', () => {
    expect(renderError(new GatewayError('body_too_large', 'too big'), 'anthropic', requestId)).toEqual({
      status: 413,
      body: { type: 'error', error: { type: 'request_too_large', message: 'too big (request id: req123)' }, request_id: requestId },
    });
    expect(renderError(new GatewayError('user_disabled', 'x'), 'anthropic', requestId).body).toMatchObject({ error: { type: 'permission_error' } });
    expect(renderError(new GatewayError('invalid_api_key', 'x'), 'anthropic', requestId).body).toMatchObject({ error: { type: 'authentication_error' } });
  });

  it('renders the Gemini envelope with the numeric code and the gRPC status name', () => {
    expect(renderError(new GatewayError('invalid_api_key', 'bad key'), 'gemini', requestId)).toEqual({
      status: 401,
      body: { error: { code: 401, message: 'bad key', status: 'UNAUTHENTICATED' } },
    });
    expect(renderError(new GatewayError('channel_pin_forbidden', 'x'), 'gemini', requestId).body).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
    expect(renderError(new GatewayError('route_not_found', 'x'), 'gemini', requestId).body).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  });

  it('renders the /api envelope', () => {
    expect(renderError(new GatewayError('forbidden', 'Not allowed'), 'api', requestId)).toEqual({ status: 403, body: { success: false, message: 'Not allowed' } });
  });
});

describe('renderError in the Midjourney-proxy style', () => {
  it.each<[GatewayErrorCode, number, number]>([
    ['invalid_request', 400, 4],
    ['missing_api_key', 401, 4],
    ['insufficient_quota', 402, 4],
    ['not_found', 404, 3],
    ['route_not_found', 404, 3],
    ['rate_limited', 429, 4],
    ['upstream_error', 502, 9],
    ['no_available_channel', 503, 9],
  ])('renders %s as HTTP %i with code %i', (code, status, mjCode) => {
    expect(renderError(new GatewayError(code, 'Nope.'), 'mj', 'req-1')).toEqual({ status, body: { code: mjCode, description: 'Nope. (request id: req-1)', type: code, result: null } });
  });
});

describe('renderError for an upstream\'s error answer', () => {
  const overloaded = new GatewayError('upstream_error', 'Overloaded', { status: 529, upstream: { code: 'overloaded_error' } });
  const exhausted = new GatewayError('upstream_error', 'Resource has been exhausted', { status: 429, upstream: { code: 'RESOURCE_EXHAUSTED' } });

  it('renders it in OpenAI\'s words for its kind, with the upstream\'s status and message', () => {
    expect(renderError(overloaded, 'openai', 'r1')).toEqual({ status: 529, body: { error: { message: 'Overloaded (request id: r1)', type: 'server_error', param: null, code: 'server_is_overloaded' } } });
    expect(renderError(exhausted, 'openai', 'r1').body).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } });
    const quota = new GatewayError('upstream_error', 'You exceeded your current quota', { status: 429, upstream: { code: 'insufficient_quota' } });
    expect(renderError(quota, 'openai', 'r1').body).toMatchObject({ error: { type: 'server_error', code: null } });
  });

  it('renders it in Anthropic\'s and Google\'s words for its kind', () => {
    expect(renderError(exhausted, 'anthropic', 'r1').body).toMatchObject({ error: { type: 'rate_limit_error' } });
    expect(renderError(new GatewayError('upstream_error', 'x', { status: 400, upstream: { code: 'insufficient_quota' } }), 'anthropic', 'r1').body).toMatchObject({ error: { type: 'api_error' } });
    expect(renderError(overloaded, 'gemini', 'r1')).toEqual({ status: 529, body: { error: { code: 529, message: 'Overloaded', status: 'UNAVAILABLE' } } });
  });

  it('renders one without a code by its status', () => {
    const bare = new GatewayError('upstream_error', 'Service Unavailable', { status: 503, upstream: { code: undefined } });
    expect(renderError(bare, 'openai', 'r1').body).toMatchObject({ error: { type: 'server_error', code: 'server_is_overloaded' } });
    expect(renderError(bare, 'anthropic', 'r1').body).toMatchObject({ error: { type: 'overloaded_error' } });
  });
});

describe('renderError for the gateway\'s own failure to get an answer', () => {
  it('gives it its kind\'s words: a server fault, never a refused key, with the gateway\'s code for OpenAI', () => {
    const refused = new GatewayError('upstream_credentials_refused', 'The upstream refused the credentials of the gateway\'s channel (HTTP 401).');
    expect(renderError(refused, 'openai', 'r1')).toMatchObject({ status: 502, body: { error: { type: 'server_error', code: 'upstream_credentials_refused' } } });
    expect(renderError(refused, 'anthropic', 'r1').body).toMatchObject({ error: { type: 'api_error' } });
    expect(renderError(refused, 'gemini', 'r1').body).toMatchObject({ error: { code: 502, status: 'INTERNAL' } });
    const outOfCredit = new GatewayError('upstream_out_of_credit', 'The upstream says the account of the gateway\'s channel is out of credit or disabled (HTTP 429).');
    expect(renderError(outOfCredit, 'openai', 'r1')).toMatchObject({ status: 502, body: { error: { type: 'server_error', code: 'upstream_out_of_credit' } } });
    expect(renderError(outOfCredit, 'anthropic', 'r1').body).toMatchObject({ error: { type: 'api_error' } });
    expect(renderError(outOfCredit, 'gemini', 'r1').body).toMatchObject({ error: { code: 502, status: 'INTERNAL' } });
    const unreachable = new GatewayError('upstream_error', 'Upstream connection failed.');
    expect(renderError(unreachable, 'openai', 'r1').body).toMatchObject({ error: { type: 'server_error', code: 'upstream_error' } });
    const timeout = new GatewayError('upstream_timeout', 'The upstream did not answer in time.');
    expect(renderError(timeout, 'openai', 'r1')).toMatchObject({ status: 504, body: { error: { type: 'server_error', code: 'upstream_timeout' } } });
    expect(renderError(timeout, 'anthropic', 'r1').body).toMatchObject({ error: { type: 'timeout_error' } });
    expect(renderError(timeout, 'gemini', 'r1').body).toMatchObject({ error: { status: 'DEADLINE_EXCEEDED' } });
  });

  it('never renders an upstream\'s 401 in a style\'s words for a refused key', () => {
    const upstream401 = new GatewayError('upstream_error', 'invalid x-api-key', { status: 401, upstream: { code: 'authentication_error' } });
    expect(renderError(upstream401, 'openai', 'r1').body).toMatchObject({ error: { type: 'server_error', code: null } });
    expect(renderError(upstream401, 'anthropic', 'r1').body).toMatchObject({ error: { type: 'api_error' } });
    expect(renderError(upstream401, 'gemini', 'r1').body).toMatchObject({ error: { status: 'INTERNAL' } });
  });
});
