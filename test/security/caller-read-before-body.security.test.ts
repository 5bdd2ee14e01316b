/**
 * Every handler of a route an API key calls with a body reads its caller again before it looks at the body
 * (src/http/refresh-caller.ts, each handler's first statement). A key disabled through the admin API while
 * a body uploads is then a 401 on every such route, whatever the body: here a body each route refuses
 * (no model, no prompt, no ids), which a handler that skipped the read would answer with its 400 (or a
 * 501 for what the gateway does not serve) — the read at admission comes too late for it. One route per
 * handler in the route files; the Midjourney prefixes (`/mj-fast/mj/…`) and the paths one handler serves
 * under two names (`/v1/edits`, `/v1/models/*`) share those handlers. SQLite: the catalog is in memory.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import { waitFor } from '../routing/routing-fixture.js';
import { slowPost } from '../support/slow-post.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

/** Each route's path and a body it refuses before any upstream call. */
const keyedBodyRoutes: ReadonlyArray<{ path: string; body: object }> = [
  { path: '/v1/chat/completions', body: { messages: [] } },
  { path: '/v1/messages', body: { max_tokens: 5 } },
  // Its runner reads the caller first too: only the handler's object check comes before, so a list it is.
  { path: '/v1/messages/count_tokens', body: [{ role: 'user', content: 'hi' }] },
  { path: '/v1/responses', body: { input: 'hi' } },
  { path: '/v1/responses/compact', body: { input: 'hi' } },
  { path: '/v1/responses/input_tokens', body: { input: 'hi' } },
  { path: '/v1beta/models/gemini-2.5-flash:generateContent', body: { contents: 'not a list' } },
  { path: '/v1/completions', body: { prompt: 'hi' } },
  { path: '/v1/engines/text-embedding-3-small/embeddings', body: { input: 42 } },
  { path: '/v1/images/generations', body: { size: '1024x1024' } },
  { path: '/v1/images/variations', body: { n: 1 } },
  { path: '/v1/videos', body: { seconds: '4' } },
  { path: '/v1/video/generations', body: { seconds: '4' } },
  { path: '/v1/videos/task_00000000000000000000000000000000/remix', body: { prompt: 'again' } },
  { path: '/api/asset/createMedia', body: { url: 42 } },
  { path: '/kling/v1/videos/text2video', body: { duration: '5' } },
  { path: '/suno/submit/music', body: { mv: 'chirp-v4' } },
  { path: '/suno/fetch', body: { ids: 'not a list' } },
  { path: '/mj/submit/imagine', body: { base64Array: 'not a list' } },
  { path: '/mj/task/list-by-condition', body: { ids: 'not a list' } },
  { path: '/api/upload/presign', body: { filename: 'a.png' } },
  // The Conversations routes refuse a body that is not a JSON object.
  { path: '/v1/conversations', body: ['not an object'] },
  { path: '/v1/conversations/conv_0000000000000000/items', body: ['not an object'] },
];

const keyOf = (index: number) => `sk-${String(index).padStart(2, '0')}${'r'.repeat(46)}`;

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway({
    config: {
      groups: { default: 1 },
      channels: [],
      users: [{ username: 'alice', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
      tokens: keyedBodyRoutes.map((_route, index) => ({ name: `key-${index}`, user: 'alice', key: keyOf(index), quota: 100_000_000, expires_at: 0, enabled: true })),
    } as unknown as ConfigFile,
  });
});
afterAll(async () => {
  await gateway?.close();
});

const tokenIdOf = (name: string) => [...gateway.gateway.services.catalog.snapshot.tokensById.values()].find((token) => token.name === name)!.id;

/** Disables the token through the admin API, and waits for the catalog to hold it before the rest of the body goes. */
async function disable(name: string): Promise<void> {
  const id = tokenIdOf(name);
  const answer = await fetch(`${gateway.url}/api/admin/tokens/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ enabled: false }),
  });
  expect(answer.status).toBeLessThan(300);
  expect(await waitFor(() => gateway.gateway.services.catalog.snapshot.tokensById.get(id)?.enabled === false)).toBe(true);
}

describe('a key disabled while a body uploads, on every keyed body route', () => {
  it.each(keyedBodyRoutes.map((route, index) => ({ ...route, index })))('$path: 401 before the body is looked at', async ({ path, body, index }) => {
    // The control: the same body sent whole with the key still enabled is refused for what it is, not for the key.
    const whole = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${keyOf(index)}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(whole.status).not.toBe(401);
    const out = await slowPost(`${gateway.url}${path}`, { authorization: `Bearer ${keyOf(index)}` }, body as Record<string, unknown>, () => disable(`key-${index}`));
    expect(out.status, JSON.stringify(out.json)).toBe(401);
  });

  it('the openai SDK sees the disabled key as the slow uploads did', async () => {
    const client = new OpenAI({ apiKey: keyOf(0), baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const error = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
