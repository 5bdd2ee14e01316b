/**
 * An upstream that refuses the channel's key (401), or its permission (403), or a bad key whatever the status
 * (Google's 400 `API_KEY_INVALID`) is about the gateway's credentials: the client's own key was accepted.
 * Every SDK, same-style (where the upstream's body used to pass through as sent) and converted, used to raise
 * its error for a refused key of its own — openai `AuthenticationError` (`invalid_api_key`), Anthropic
 * `AuthenticationError`, Gemini `ApiError` 401 `UNAUTHENTICATED` — with the upstream's status. Now: a 502
 * in the style's words for a server fault, naming the channel's credentials, after failover found no other
 * channel; with another channel the request is served there.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { caught, callerKey, M, modelOf, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

/** Each vendor's refusal of a key, as its API sends it. */
const refusals: { name: string; up: WireStyle; status: number; json: unknown }[] = [
  { name: 'OpenAI Chat 401 invalid_api_key', up: 'openai-chat', status: 401, json: { error: { message: 'Incorrect API key provided: up-chat.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } },
  { name: 'OpenAI Responses 403 (region)', up: 'openai-responses', status: 403, json: { error: { message: 'Country, region, or territory not supported', type: 'request_forbidden', param: null, code: 'unsupported_country_region_territory' } } },
  { name: 'Anthropic 401 authentication_error', up: 'anthropic', status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' }, request_id: 'req_up' } },
  { name: 'Anthropic 403 permission_error', up: 'anthropic', status: 403, json: { type: 'error', error: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' }, request_id: 'req_up' } },
  { name: 'Gemini 400 API_KEY_INVALID', up: 'gemini', status: 400, json: { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }] } } },
  { name: 'Gemini 403 PERMISSION_DENIED', up: 'gemini', status: 403, json: { error: { code: 403, message: 'Method doesn\'t allow unregistered callers.', status: 'PERMISSION_DENIED' } } },
];

const told = "refused the credentials of the gateway's channel";

describe('an upstream refusing the channel\'s credentials reaches no client as a refusal of its own key', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  describe.each(refusals)('$name', (refusal) => {
    const model = modelOf[refusal.up];
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const refuse = () => {
      fixture.upstream.clearQueue();
      fixture.upstream.enqueue({ status: refusal.status, json: refusal.json });
    };

    it.each([false, true])('openai Chat (stream=%s): a 502 server_error, no AuthenticationError or PermissionDeniedError', async (stream) => {
      refuse();
      const error = await caught(stream
        ? (async () => { for await (const _chunk of await fixture.openai.chat.completions.create({ model, messages, stream: true })) void _chunk; })()
        : fixture.openai.chat.completions.create({ model, messages }));
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect({ status: error.status, type: error.type, code: error.code }).toEqual({ status: 502, type: 'server_error', code: 'upstream_credentials_refused' });
      expect(error.message).toContain(told);
      expect(error.message).toContain(`HTTP ${refusal.status}`);
    });

    it('openai Responses: a 502 server_error', async () => {
      refuse();
      const error = await caught(fixture.openai.responses.create({ model, input: 'hi' }));
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect({ status: error.status, type: error.type, code: error.code }).toEqual({ status: 502, type: 'server_error', code: 'upstream_credentials_refused' });
    });

    it('Anthropic: a 502 api_error, no AuthenticationError or PermissionDeniedError', async () => {
      refuse();
      const error = await caught(fixture.anthropic.messages.create({ model, max_tokens: 50, messages }));
      expect(error).toBeInstanceOf(Anthropic.InternalServerError);
      expect(error.status).toBe(502);
      expect(error.error).toMatchObject({ type: 'error', error: { type: 'api_error', message: expect.stringContaining(told) } });
    });

    it('Gemini: ApiError 502 INTERNAL, not UNAUTHENTICATED or PERMISSION_DENIED', async () => {
      refuse();
      const error = await caught(fixture.gemini.models.generateContent({ model, contents: 'hi' }));
      expect(error).toBeInstanceOf(ApiError);
      expect(error.status).toBe(502);
      expect(JSON.parse(error.message)).toMatchObject({ error: { code: 502, status: 'INTERNAL', message: expect.stringContaining(told) } });
    });
  });

  it('keeps the upstream\'s own message out of the answer, and in the log row\'s attempt', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue({ status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key for organization org-secret' } } });
    const error = await caught(fixture.openai.chat.completions.create({ model: M.anthropic, messages: [{ role: 'user', content: 'hi' }] }));
    expect(error.message).not.toContain('org-secret');
    const row = await fixture.lastLog();
    expect(row.status).toBe(502);
    expect(JSON.stringify(row.attempts)).toContain('org-secret');
  });
});

describe('with another channel for the model', () => {
  let upstream: ScriptedUpstream;
  let gateway: TestGateway;
  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    const channel = (name: string, priority: number) => ({
      name, type: 'anthropic' as const, base_url: upstream.url, key: `up-${name}`, models: [M.anthropic], groups: ['default'], priority, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {},
    });
    gateway = await startTestGateway({
      config: {
        prices: { [M.anthropic]: { input: 1, output: 2 } },
        channels: [channel('first', 10), channel('second', 0)],
        tokens: [{ name: 'caller', key: callerKey, unlimited_quota: true, expires_at: 0, enabled: true }],
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('the one whose key is refused fails over to it, and the client is served', async () => {
    upstream.enqueue({ status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } }, replyFor('anthropic', { text: 'Served by the second', usage: { input: 3, output: 4 } }, false));
    const openai = new OpenAI({ apiKey: callerKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const completion = await openai.chat.completions.create({ model: M.anthropic, messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]?.message.content).toBe('Served by the second');
    expect(upstream.requests.map((request) => request.headers['x-api-key'])).toEqual(['up-first', 'up-second']);
  });
});
