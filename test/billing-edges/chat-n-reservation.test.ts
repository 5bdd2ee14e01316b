/**
 * A Chat request with `n` > 1 can produce n × max_tokens of output: its reservation covers n choices, so a
 * key whose balance covers one choice but not n is refused before the upstream is paid for them.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const clientKey = `sk-${'n'.repeat(48)}`;
let upstream: ScriptedUpstream;
let gateway: TestGateway;
const n = 8;
const maxTokens = 1000;
/** Output at 15 $/M × 0.5 quota units per $·tok/M = 7.5 units per token: one choice's budget ≈ 7,500; n choices ≈ 60,000. */
const balance = 12_000;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startTestGateway({
    config: {
      retry_times: 0,
      prices: { 'gpt-4o-mini': { input: 3, output: 15 } },
      channels: [{ name: 'oai', type: 'openai', base_url: upstream.url, key: 'sk-up', models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
      users: [{ username: 'u', role: 'user', group: 'default', quota: 100_000_000, enabled: true }],
      tokens: [{ name: 'small', user: 'u', key: clientKey, quota: balance, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('chat n > 1 reservation', () => {
  it('reserves n × max_tokens: a balance that covers one choice but not n is refused (402) before any upstream call', async () => {
    const text = 'word '.repeat(maxTokens).trim();
    const choices = Array.from({ length: n }, (_, index) => ({ index, message: { role: 'assistant', content: text }, finish_reason: 'length' }));
    upstream.enqueue({ json: { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices, usage: { prompt_tokens: 9, completion_tokens: n * maxTokens, total_tokens: 9 + n * maxTokens } } });
    const sdk = new OpenAI({ apiKey: clientKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const outcome = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }], n, max_tokens: maxTokens }).then(
      (answer) => ({ served: answer.choices.length }),
      (error: unknown) => ({ status: (error as { status?: number }).status }),
    );
    await gateway.settled();
    const row = await gateway.gateway.services.database.db.selectFrom('tokens').select(['used_quota', 'remain_quota']).where('name', '=', 'small').executeTakeFirstOrThrow();
    expect({ outcome, upstreamCalls: upstream.requests.length, used: Number(row.used_quota) }).toEqual({ outcome: { status: 402 }, upstreamCalls: 0, used: 0 });
  });
});
