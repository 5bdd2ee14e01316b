/**
 * From the small-routes and endpoints audits: `/api/usage/token/` and `/dashboard/billing/usage` of an
 * unlimited token of an unlimited user stay the same while a request runs (an unlimited balance is never
 * taken from, so its reservations are not counted), and the two routes agree. An unlimited token of a limited
 * user shows its user's balance instead (balance-bound-by-user.test.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callGateway } from '../admin/admin-client.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatStream } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const key = `sk-${'n'.repeat(48)}`;
/** A second unlimited token, so the first test's request settling late does not move this one's usage. */
const billingKey = `sk-${'u'.repeat(48)}`;
let gateway: TestGateway;
let upstream: ScriptedUpstream;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startTestGateway({
    config: {
      prices: { 'gpt-4o-mini': { input: 1, output: 2 } },
      channels: [{ name: 'oa', type: 'openai', base_url: upstream.url, key: 'sk-up-a-0000000000', models: ['gpt-4o-mini'], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
      // No quota: an unlimited user.
      users: [{ username: 'alice', role: 'user', group: 'default', enabled: true }],
      tokens: [
        { name: 'free', user: 'alice', key, unlimited_quota: true, quota: 1_000, expires_at: 0, enabled: true },
        { name: 'free-billing', user: 'alice', key: billingKey, unlimited_quota: true, quota: 1_000, expires_at: 0, enabled: true },
      ],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const get = async (path: string, as = key) => (await callGateway(gateway, 'GET', path, { headers: { authorization: `Bearer ${as}` } })).body;
const usage = async () => (await get('/api/usage/token/')).data;

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

it('an unlimited token: /dashboard/billing/usage does not count in-flight reservations (agrees with /api/usage/token/)', async () => {
  const before = (await get('/dashboard/billing/usage', billingKey)).total_usage;
  upstream.enqueue({ ...chatStream({ text: 'one two three', usage: { input: 10, output: 6 } }), delayMs: 250 });
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${billingKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, max_tokens: 100_000, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const reader = response.body!.getReader();
  await reader.read();
  await sleep(100);
  const during = (await get('/dashboard/billing/usage', billingKey)).total_usage;
  const tokenDuring = (await get('/api/usage/token/', billingKey)).data;
  while (!(await reader.read()).done);
  expect(during).toBe(before);
  // The two routes tell the same story: total_usage is total_used in cents of the display unit (USD).
  expect(during).toBeCloseTo((tokenDuring.total_used / 500_000) * 100, 9);
});
