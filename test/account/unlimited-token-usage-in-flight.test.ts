/**
 * From the small-routes audit: `/api/usage/token/` of an unlimited token keeps its granted total while a
 * request runs (an unlimited balance is never taken from, so its reservations are not counted).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callGateway } from '../admin/admin-client.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatStream } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const key = `sk-${'n'.repeat(48)}`;
let gateway: TestGateway;
let upstream: ScriptedUpstream;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startTestGateway({
    config: {
      prices: { 'gpt-4o-mini': { input: 1, output: 2 } },
      channels: [{ name: 'oa', type: 'openai', base_url: upstream.url, key: 'sk-up-a-0000000000', models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
      users: [{ username: 'alice', role: 'user', group: 'default', quota: 10_000_000, enabled: true }],
      tokens: [{ name: 'free', user: 'alice', key, unlimited_quota: true, quota: 1_000, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const usage = async () => (await callGateway(gateway, 'GET', '/api/usage/token/', { headers: { authorization: `Bearer ${key}` } })).body.data;

// docs/behaviour.md: "the granted total (total_granted, hard_limit_usd) stays the same while a request runs".
// An unlimited token's remain_quota never moves (sql ledgers), so a reservation is not taken from it: adding
// what is in flight to total_granted (and to total_used) inflates both while the request runs.
it('an unlimited token: total_granted does not jump while a request runs', async () => {
  const before = await usage();
  upstream.enqueue({ ...chatStream({ text: 'one two three', usage: { input: 10, output: 6 } }), delayMs: 250 });
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, max_tokens: 100_000, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const reader = response.body!.getReader();
  await reader.read();
  await sleep(100);
  const during = await usage();
  while (!(await reader.read()).done);
  expect(during.total_granted).toBe(before.total_granted);
  expect(during.total_used + during.total_available).toBe(during.total_granted);
});
