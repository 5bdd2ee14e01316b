/**
 * From the small-routes audit: the Anthropic-style model list places an `after_id` / `before_id` cursor by
 * the list's order, so one no longer listed (its channel disabled between two pages) continues where it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const key = `sk-${'p'.repeat(48)}`;
const models = Array.from({ length: 10 }, (_unused, index) => `m-${String(index).padStart(2, '0')}`);
const anthropicHeaders = { 'x-api-key': key, 'anthropic-version': '2023-06-01' };

let gateway: TestGateway;
beforeAll(async () => {
  const prices: NonNullable<ConfigFile['prices']> = Object.fromEntries(models.map((model) => [model, { input: 1, output: 2 }]));
  gateway = await startTestGateway({
    config: {
      prices,
      channels: [{ name: 'c', type: 'openai', base_url: 'http://127.0.0.1:9', key: 'sk-up', models, groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000, enabled: true }],
      tokens: [{ name: 't', user: 'u', key, quota: 1_000_000, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
});

const list = async (query: string) => {
  const response = await fetch(`${gateway.url}/v1/models${query}`, { headers: anthropicHeaders });
  return { status: response.status, body: (await response.json()) as { data?: { id: string }[]; has_more?: boolean; first_id?: string | null } };
};

describe('Anthropic-style list cursors (after_id / before_id) that name no listed model', () => {
  // A client pages with last_id; if that model leaves the list between two pages (its channel disabled,
  // its price removed), the next page must continue after the cursor, never restart from the top — an SDK
  // auto-paginating (has_more true) would otherwise loop over the same models forever.
  it('after_id of a model no longer listed: the page continues after it, not from the first model', async () => {
    const { status, body } = await list('?limit=3&after_id=m-04x');
    expect(status).toBe(200);
    expect(body.data?.map((model) => model.id)).toEqual(['m-05', 'm-06', 'm-07']);
  });

  it('before_id of a model no longer listed: the page ends before it, not at the last model', async () => {
    const { status, body } = await list('?limit=3&before_id=m-04x');
    expect(status).toBe(200);
    expect(body.data?.map((model) => model.id)).toEqual(['m-02', 'm-03', 'm-04']);
  });
});
