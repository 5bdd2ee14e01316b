/**
 * /api/admin/prices with the price fields (audio_input / audio_output included) written as a JSON number
 * past a double (1e400, which JSON.parse reads as Infinity): the bar is a 400 in the /api envelope naming
 * the field, nothing stored. Before the fix (found by the bad-input audit): 200, the answer showed the field as null (JSON has no Infinity), the
 * catalog holds Infinity, and every request for the model is a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, send, startTaskRoutesFixture, type TaskRoutesFixture } from './task-routes-fixture.js';

let f: TaskRoutesFixture;
beforeAll(async () => {
  f = await startTaskRoutesFixture();
});
afterAll(async () => {
  await f?.close();
});

describe('admin prices refuse non-finite numbers', () => {
  it.each(['audio_input', 'audio_output', 'input', 'per_call'])('POST /api/admin/prices {%s: 1e400} → 400 naming the field, nothing stored', async (field) => {
    const model = `inf-price-${field}`;
    const sent = await send(f, '/api/admin/prices', { body: `{"model":"${model}","${field}":1e400}`, auth: f.gateway.adminKey });
    expect(sent.status, sent.text).toBe(400);
    expect(expectEnvelope(sent, 'api')).toContain(field);
    expect(f.gateway.gateway.services.catalog.snapshot.prices.has(model)).toBe(false);
  });

  it.each(['audio_input', 'audio_output', 'output'])('PUT /api/admin/prices/gpt-4o-mini {%s: 1e400} → 400 naming the field, price unchanged', async (field) => {
    const sent = await send(f, '/api/admin/prices/gpt-4o-mini', { method: 'PUT', body: `{"${field}":1e400}`, auth: f.gateway.adminKey });
    expect(sent.status, sent.text).toBe(400);
    expect(expectEnvelope(sent, 'api')).toContain(field);
    const price = f.gateway.gateway.services.catalog.snapshot.prices.get('gpt-4o-mini') as unknown as Record<string, unknown>;
    expect(Object.values(price).every((value) => typeof value !== 'number' || Number.isFinite(value)), JSON.stringify(price)).toBe(true);
  });

  it('after a refused PUT the model still serves chat (before the fix: 500 internal_error on every request)', async () => {
    await send(f, '/api/admin/prices/gpt-4o-mini', { method: 'PUT', body: '{"output":1e400}', auth: f.gateway.adminKey });
    const chat = await send(f, '/v1/chat/completions', { body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }) });
    expect(chat.status, chat.text).toBe(200);
  });
});
