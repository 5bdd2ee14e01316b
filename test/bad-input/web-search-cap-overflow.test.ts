/**
 * The web-search cap a request declares (found by the type-confusion sweep): Anthropic's `web_search` tool
 * `max_uses`, Responses' `max_tool_calls` beside a `web_search` tool, reserved at the model's `web_search`
 * price. A cap of 2^53 − 1 took the reservation past 2^53 — a 500 from compute-charge.ts's RangeError. Now
 * it is a 402 (no balance covers it) in the route's envelope, no upstream call, nothing charged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, send, withoutCharge } from './bad-input-fixture.js';
import { startFakeAnthropicUpstream, type FakeAnthropicUpstream } from '../fakes/fake-anthropic-upstream.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const key = `sk-${'w'.repeat(48)}`;
let gateway: TestGateway;
let anthropic: FakeAnthropicUpstream;
let openai: FakeOpenaiUpstream;

const watch = {
  upstreamCalls: () => anthropic.requests.length + openai.requests.length,
  async balances() {
    await gateway.settled();
    const { db } = gateway.gateway.services.database;
    const tokens = await db.selectFrom('tokens').select(['name', 'remain_quota', 'used_quota']).execute();
    const users = await db.selectFrom('users').select(['username', 'quota', 'used_quota']).execute();
    const open = await db.selectFrom('quota_reservations').select(['id']).where('state', '=', 'reserved').execute();
    return { tokens: tokens.map((row) => ({ ...row })), users: users.map((row) => ({ ...row })), openReservations: open.length };
  },
};

beforeAll(async () => {
  anthropic = await startFakeAnthropicUpstream({ expectedKeys: ['sk-ant-upstream'] });
  openai = await startFakeOpenaiUpstream({ expectedKeys: ['sk-openai-upstream'] });
  const channel = (name: string, type: 'openai' | 'anthropic', url: string, upstreamKey: string, models: string[]) => ({
    name, type, base_url: url, key: upstreamKey, models, groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {},
  });
  gateway = await startTestGateway({
    config: {
      prices: { 'claude-sonnet-5-5': { input: 1, output: 2, web_search: 0.01 }, 'gpt-4o-mini': { input: 1, output: 2, web_search: 0.01 } },
      channels: [channel('anthropic', 'anthropic', anthropic.url, 'sk-ant-upstream', ['claude-sonnet-5-5']), channel('openai', 'openai', openai.url, 'sk-openai-upstream', ['gpt-4o-mini'])],
      users: [{ username: 'alice', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
      tokens: [{ name: 'good', user: 'alice', key, quota: 100_000_000, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([anthropic?.close(), openai?.close()]);
});

const cap = Number.MAX_SAFE_INTEGER;

describe('a huge declared web-search cap is refused, not a 500', () => {
  it.each([
    ['/v1/messages web_search max_uses 2^53-1', '/v1/messages', 'anthropic', { model: 'claude-sonnet-5-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: cap }] }],
    ['/v1/responses web_search max_tool_calls 2^53-1', '/v1/responses', 'openai', { model: 'gpt-4o-mini', input: 'hi', max_output_tokens: 16, tools: [{ type: 'web_search' }], max_tool_calls: cap }],
  ] as const)('%s → 400 or 402 in the envelope, no upstream call, no charge', async (_label, path, style, body) => {
    const sent = await withoutCharge(watch, () => send({ url: gateway.url }, path, { body: JSON.stringify(body), auth: key, headers: { 'x-api-key': key } }));
    expect([400, 402], sent.text).toContain(sent.status);
    expectEnvelope(sent, style);
  });
});
