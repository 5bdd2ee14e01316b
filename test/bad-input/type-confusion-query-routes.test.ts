/**
 * GET routes with hostile query strings: the Gemini model list (`pageSize`, `pageToken`), the
 * Anthropic-style list (`limit`, `after_id`, `before_id`), the account routes (`/dashboard/billing/*`,
 * `/v1/dashboard/billing/*`, `/api/usage/token`), each parameter given once, twice (an array) and as
 * `a[b]=` (an object, when a qs parser reads it). Bar: check-raw.ts; a list answers 200 with a list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRaw, type RawCase } from './type-confusion-cases.js';
import { keys, startMoreRoutesFixture, type MoreRoutesFixture } from './more-routes-fixture.js';

const values = ['null', '0', '-1', '1e308', '', 'x', 'true', '[]', '{}', '99999999999999999999999', '-99999999999999999999', '1.5', '%00', '%FF', 'x'.repeat(8000), '9'.repeat(400)];

const routes: Array<{ path: string; params: string[]; style: RawCase['style']; headers?: Record<string, string> }> = [
  { path: '/v1beta/models', params: ['pageSize', 'pageToken'], style: 'gemini', headers: { 'x-goog-api-key': keys.good } },
  { path: '/v1/models', params: ['pageSize', 'pageToken'], style: 'gemini', headers: { 'x-goog-api-key': keys.good } },
  { path: '/v1/models', params: ['limit', 'after_id', 'before_id'], style: 'anthropic', headers: { 'x-api-key': keys.good, 'anthropic-version': '2023-06-01' } },
  { path: '/v1/models', params: ['limit'], style: 'openai' },
  { path: '/dashboard/billing/subscription', params: ['start_date', 'end_date'], style: 'openai' },
  { path: '/dashboard/billing/usage', params: ['start_date', 'end_date'], style: 'openai' },
  { path: '/v1/dashboard/billing/subscription', params: ['start_date'], style: 'openai' },
  { path: '/v1/dashboard/billing/usage', params: ['start_date', 'end_date'], style: 'openai' },
  { path: '/api/usage/token', params: ['key', 'p'], style: 'api' },
];

const cases: Array<[string, RawCase]> = [];
for (const route of routes) {
  for (const param of route.params) {
    for (const value of values) {
      const shown = value.length > 20 ? `${value.slice(0, 8)}…(${value.length})` : value;
      for (const [form, query] of [
        ['once', `${param}=${value}`],
        ['twice', `${param}=${value}&${param}=1`],
        ['object', `${param}[a]=${value}`],
      ] as const) {
        cases.push([`${route.style} ${route.path} ${param} ${form} = ${shown}`, { method: 'GET', path: `${route.path}?${query}`, style: route.style, headers: route.headers, ...(route.headers !== undefined ? { key: null } : {}) }]);
      }
    }
  }
}

let fixture: MoreRoutesFixture;
beforeAll(async () => {
  fixture = await startMoreRoutesFixture();
});
afterAll(async () => {
  await fixture?.close();
});

describe('GET routes × hostile query values', () => {
  it.each(cases)('%s', async (_name, c) => {
    const { sent } = await checkRaw(fixture, c, keys.good);
    expect(sent.status, sent.text.slice(0, 300)).toBe(200);
  });
});
