import { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey, startRelayFixture, type RelayFixture } from './relay-test-setup.js';

const limitedKey = `sk-${'l'.repeat(48)}`;
const poorKey = `sk-${'p'.repeat(48)}`;
const restrictedKey = `sk-${'r'.repeat(48)}`;

describe('OpenAI-style relay: bad input gets a clear error and loses nothing', () => {
  let fixture: RelayFixture;

  beforeAll(async () => {
    fixture = await startRelayFixture({
      config: {
        max_body_mb: 0.05,
        prices: {
          'gpt-4o-mini': { input: 0.15, output: 0.6 },
        },
        tokens: [
          { name: 'alice-key', user: 'alice', key: clientKey, quota: 10_000_000, expires_at: 0, enabled: true },
          { name: 'limited', user: 'alice', key: limitedKey, unlimited_quota: true, rate_limit: { rpm: 2 }, expires_at: 0, enabled: true },
          { name: 'poor', user: 'alice', key: poorKey, quota: 3, expires_at: 0, enabled: true },
          { name: 'restricted', user: 'alice', key: restrictedKey, unlimited_quota: true, model_limits: ['text-embedding-3-small'], expires_at: 0, enabled: true },
        ],
      },
    });
  });
  afterAll(async () => {
    await fixture.close();
  });

  const post = (body: string, key = clientKey, path = '/v1/chat/completions') =>
    fetch(`${fixture.gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
  const upstreamCalls = () => fixture.upstreamA.requests.length + fixture.upstreamB.requests.length;

  async function expectRefused(response: Response, status: number, code: string) {
    expect(response.status).toBe(status);
    const body = (await response.json()) as { error: { code: string; message: string; type: string } };
    expect(body.error.code).toBe(code);
    expect(body.error.message).toContain('request id');
    return body;
  }

  it('answers malformed JSON with 400 invalid_json and calls nothing', async () => {
    const before = upstreamCalls();
    await expectRefused(await post('{"model": "gpt-4o-mini", "messages": ['), 400, 'invalid_json');
    expect(upstreamCalls()).toBe(before);
  });

  it('answers wrong types with 400 naming the parameter', async () => {
    const response = await post(JSON.stringify({ model: 'gpt-4o-mini', messages: 'hello' }));
    const body = (await response.json()) as { error: { param: string } };
    expect(response.status).toBe(400);
    expect(body.error.param).toBe('messages');
    const missing = await post(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }));
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain("'model'");
  });

  it('answers an unknown model with 400 model_not_found', async () => {
    await expectRefused(await post(JSON.stringify({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })), 400, 'model_not_found');
  });

  it('quotes a long unknown or forbidden model cut to 128 characters, saying how much was cut', async () => {
    const model = `gpt-${'x'.repeat(20_000)}`;
    const quoted = `${model.slice(0, 128)}… (19,876 more characters)`;
    for (const [key, status, words] of [[clientKey, 400, `The model \`${quoted}\` does not exist`], [restrictedKey, 403, `This API key may not use model ${quoted}.`]] as const) {
      const client = key === clientKey ? fixture.client : fixture.client.withOptions({ apiKey: key });
      const error = (await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught)) as APIError;
      expect(error.status).toBe(status);
      expect(error.message).toContain(words);
      expect(error.message.length).toBeLessThan(400);
    }
  });

  it('refuses a model without a price with 400 and takes no quota', async () => {
    const before = await fixture.token();
    const error = (await fixture.client.chat.completions.create({ model: 'alias-model', messages: [{ role: 'user', content: 'hi' }] }).catch((caught: unknown) => caught)) as APIError;
    expect(error.status).toBe(400);
    expect(error.code).toBe('price_not_configured');
    expect(await fixture.token()).toEqual(before);
  });

  it('refuses a model outside the key\'s model_limits with 403', async () => {
    await expectRefused(await post(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }), restrictedKey), 403, 'model_not_allowed');
  });

  it('answers 402 insufficient_quota before any upstream call when the token cannot cover the reservation', async () => {
    const before = upstreamCalls();
    await expectRefused(await post(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100 }), poorKey), 402, 'insufficient_quota');
    expect(upstreamCalls()).toBe(before);
  });

  it('answers a body over max_body_mb with 413', async () => {
    const response = await post(JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x'.repeat(100_000) }] }));
    expect(response.status).toBe(413);
  });

  it('limits a token to its rpm with 429, Retry-After and x-ratelimit headers, without calling upstream', async () => {
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const first = await post(body, limitedKey);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect((await post(body, limitedKey)).status).toBe(200);
    const before = upstreamCalls();
    const refused = await post(body, limitedKey);
    await expectRefused(refused, 429, 'rate_limit_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(upstreamCalls()).toBe(before);
  });
});
