/**
 * An upstream saying the channel's account is out of credit — OpenAI's 429 `insufficient_quota`, Anthropic's
 * 402 `billing_error` and 400 "Your credit balance is too low", Google's 429 "You exceeded your current quota"
 * — is about the gateway's account with the vendor: the client's own balance was admitted. Every SDK used to
 * raise it in its quota words with the upstream's status (openai `RateLimitError` `insufficient_quota`,
 * Anthropic `billing_error`, Gemini `RESOURCE_EXHAUSTED`), same-style as the upstream's body passed through,
 * converted in the kind's words: what the gateway answers for the client's own balance run out (402
 * `insufficient_quota` / `billing_error`). Now: a 502 in the style's server-fault words saying the channel's
 * account is out of credit, after failover found no other channel; with another channel the request is
 * served there.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { caught, callerKey, M, modelOf, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

const openaiQuota = { error: { message: 'You exceeded your current quota, please check your plan and billing details. Organization org-secret.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } };

/** Each vendor's answer for an account out of credit, as its API sends it. */
const exhaustions: { name: string; up: WireStyle; status: number; json: unknown }[] = [
  { name: 'OpenAI Chat 429 insufficient_quota', up: 'openai-chat', status: 429, json: openaiQuota },
  { name: 'OpenAI Responses 429 insufficient_quota', up: 'openai-responses', status: 429, json: openaiQuota },
  { name: 'Anthropic 402 billing_error', up: 'anthropic', status: 402, json: { type: 'error', error: { type: 'billing_error', message: 'There is an issue with the billing of org-secret.' }, request_id: 'req_up' } },
  { name: 'Anthropic 400 credit balance too low', up: 'anthropic', status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.' }, request_id: 'req_up' } },
];

const told = "account of the gateway's channel is out of credit";

describe('an upstream channel out of credit reaches no client as its own balance run out', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  describe.each(exhaustions)('$name', (exhaustion) => {
    const model = modelOf[exhaustion.up];
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const exhaust = () => {
      fixture.upstream.clearQueue();
      fixture.upstream.enqueue({ status: exhaustion.status, json: exhaustion.json });
    };

    it.each([false, true])('openai Chat (stream=%s): a 502 server_error, no RateLimitError insufficient_quota', async (stream) => {
      exhaust();
      const error = await caught(stream
        ? (async () => { for await (const _chunk of await fixture.openai.chat.completions.create({ model, messages, stream: true })) void _chunk; })()
        : fixture.openai.chat.completions.create({ model, messages }));
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect({ status: error.status, type: error.type, code: error.code }).toEqual({ status: 502, type: 'server_error', code: 'upstream_out_of_credit' });
      expect(error.message).toContain(told);
      expect(error.message).toContain(`HTTP ${exhaustion.status}`);
      expect(error.message).not.toContain('org-secret');
    });

    it('openai Responses: a 502 server_error', async () => {
      exhaust();
      const error = await caught(fixture.openai.responses.create({ model, input: 'hi' }));
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect({ status: error.status, type: error.type, code: error.code }).toEqual({ status: 502, type: 'server_error', code: 'upstream_out_of_credit' });
    });

    it('Anthropic: a 502 api_error, no billing_error', async () => {
      exhaust();
      const error = await caught(fixture.anthropic.messages.create({ model, max_tokens: 50, messages }));
      expect(error).toBeInstanceOf(Anthropic.InternalServerError);
      expect(error.status).toBe(502);
      expect(error.error).toMatchObject({ type: 'error', error: { type: 'api_error', message: expect.stringContaining(told) } });
      expect(JSON.stringify(error.error)).not.toContain('org-secret');
    });

    it('Gemini: ApiError 502 INTERNAL, not RESOURCE_EXHAUSTED', async () => {
      exhaust();
      const error = await caught(fixture.gemini.models.generateContent({ model, contents: 'hi' }));
      expect(error).toBeInstanceOf(ApiError);
      expect(error.status).toBe(502);
      expect(JSON.parse(error.message)).toMatchObject({ error: { code: 502, status: 'INTERNAL', message: expect.stringContaining(told) } });
    });
  });

  it('stays apart from the client\'s own balance run out, which is the gateway\'s 402 in quota words', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue({ status: 429, json: openaiQuota });
    const channels = await caught(fixture.openai.chat.completions.create({ model: M.chat, messages: [{ role: 'user', content: 'hi' }] }));
    expect(channels).not.toBeInstanceOf(OpenAI.RateLimitError);
    expect(channels.status).not.toBe(402);
    expect(channels.type).not.toBe('insufficient_quota');
    expect(channels.code).not.toBe('insufficient_quota');
    const row = await fixture.lastLog();
    expect(row.status).toBe(502);
    expect(JSON.stringify(row.attempts)).toContain('org-secret');
  });
});

describe("Google's rate limit is not an account out of credit", () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  // Google answers a per-minute limit with the words OpenAI uses for an account out of credit.
  const rateLimited = {
    status: 429,
    json: {
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier', quotaValue: '10' }] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '33s' },
        ],
      },
    },
  };

  it('a Gemini client gets its 429 RESOURCE_EXHAUSTED, not a 502', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(rateLimited);
    const error = await caught(fixture.gemini.models.generateContent({ model: modelOf.gemini, contents: 'hi' }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(429);
    expect(JSON.parse(error.message)).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
  });

  it('an openai client of a Gemini model gets a RateLimitError, not a 502', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(rateLimited);
    const error = await caught(fixture.openai.chat.completions.create({ model: modelOf.gemini, messages: [{ role: 'user', content: 'hi' }] }));
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.status).toBe(429);
  });
});

describe('with another channel for the model', () => {
  let upstream: ScriptedUpstream;
  let gateway: TestGateway;
  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    const channel = (name: string, priority: number) => ({
      name, type: 'openai' as const, base_url: upstream.url, key: `up-${name}`, models: [M.chat], groups: ['default'], priority, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {},
    });
    gateway = await startTestGateway({
      config: {
        prices: { [M.chat]: { input: 1, output: 2 } },
        channels: [channel('first', 10), channel('second', 0)],
        tokens: [{ name: 'caller', key: callerKey, unlimited_quota: true, expires_at: 0, enabled: true }],
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('the one out of credit fails over to it, and the client is served', async () => {
    upstream.enqueue({ status: 429, json: openaiQuota }, replyFor('openai-chat', { text: 'Served by the second', usage: { input: 3, output: 4 } }, false));
    const anthropic = new Anthropic({ apiKey: callerKey, baseURL: gateway.url, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: M.chat, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Served by the second' })]);
    expect(upstream.requests.map((request) => request.headers.authorization)).toEqual(['Bearer up-first', 'Bearer up-second']);
  });
});
