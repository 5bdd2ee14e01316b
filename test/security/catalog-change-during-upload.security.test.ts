import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { channel, startFixture, userKey, waitFor, type Fixture } from '../routing/routing-fixture.js';
import { replyAsAsked } from '../fakes/scripted-vendor-wire.js';
import { slowPost as postInHalves, type SlowPostAnswer } from '../support/slow-post.js';

/**
 * A key is checked in `onRequest`, before the body is read (authenticate-caller.ts); admission comes after
 * the whole body. A token or user disabled, deleted, expired, regenerated, limited or moved to another group
 * through the admin API while a large body is still uploading is read again at admission
 * (src/relay/current-caller.ts): refused with the status and envelope authentication gives now (docs/
 * behaviour.md "Authentication": 401 key unknown, disabled or expired, 403 user disabled, model outside
 * model_limits), with no upstream call and no reservation, and a changed group applies. From the audit probe
 * test/audit-suspicions/catalog-change-during-upload.test.ts: the disabled token and user were served, a
 * deleted token got a 402 from the ledger. SQLite (the catalog is in memory: databases do not matter here).
 */
let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

type Sent = SlowPostAnswer;

/** POSTs `body` to the gateway in two halves, running `between` once it has the first (slow-post.ts). */
function slowPost(f: Fixture, path: string, headers: Record<string, string>, body: Record<string, unknown>, between: () => Promise<void>): Promise<Sent> {
  return postInHalves(`${f.url}${path}`, headers, body, between);
}

const padding = 'x '.repeat(200_000);
const chatBody = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hi ${padding}` }], max_tokens: 50 };
const slowChat = (f: Fixture, between: () => Promise<void>, key = userKey) => slowPost(f, '/v1/chat/completions', { authorization: `Bearer ${key}` }, chatBody, between);

async function start(): Promise<Fixture> {
  fx = await startFixture({
    upstreams: 3,
    channels: ([a, b, c]) => [channel('a', a!), channel('vip', b!, { groups: ['vip'] }), channel('claude', c!, { type: 'anthropic', models: ['claude-x'] })],
    fallback: [undefined, undefined, replyAsAsked('anthropic', { text: 'ok', usage: { input: 10, output: 5 } })] as never,
  });
  return fx;
}

const idOf = async (f: Fixture, table: 'tokens' | 'users', column: 'name' | 'username', value: string) =>
  Number((await f.gateway.gateway.services.database.db.selectFrom(table as 'tokens').select(['id']).where(column as 'name', '=', value).executeTakeFirstOrThrow()).id);
const aliceToken = (f: Fixture) => idOf(f, 'tokens', 'name', 'alice-key');
const alice = (f: Fixture) => idOf(f, 'users', 'username', 'alice');

const upstreamCalls = (f: Fixture) => f.ups.reduce((sum, up) => sum + up.requests.length, 0);
async function reservations(f: Fixture): Promise<number> {
  await f.gateway.settled();
  return (await f.gateway.gateway.services.database.db.selectFrom('quota_reservations').select(['id']).execute()).length;
}

/** An admin API write, and the catalog holding it before the rest of the body is sent. */
async function change(f: Fixture, method: string, path: string, body: unknown, applied: () => boolean): Promise<void> {
  const answer = await f.admin(method, path, body);
  expect(answer.status, JSON.stringify(answer.json)).toBeLessThan(300);
  expect(await waitFor(applied)).toBe(true);
}

/** What the openai SDK sees for the same key and request sent now, whole: the refusal authentication gives. */
async function refusalNow(f: Fixture, key = userKey): Promise<{ status: number; type: unknown; code: unknown }> {
  const client = new OpenAI({ apiKey: key, baseURL: `${f.url}/v1`, maxRetries: 0 });
  const error = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50 }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  const { status, type, code } = error as InstanceType<typeof OpenAI.APIError>;
  return { status: status!, type, code };
}

const envelope = (sent: Sent) => ({ status: sent.status, type: sent.json.error?.type, code: sent.json.error?.code });

describe('a caller changed through the admin API while its body uploads (OpenAI Chat)', () => {
  it('control: nothing changed, the slow upload is served, and the openai SDK is served too', async () => {
    const f = await start();
    expect((await slowChat(f, async () => undefined)).status).toBe(200);
    const client = new OpenAI({ apiKey: userKey, baseURL: `${f.url}/v1`, maxRetries: 0 });
    expect((await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50 })).choices[0]?.message.content).toBeTruthy();
    expect(f.ups[0]!.requests.length).toBe(2);
  });

  it('a change elsewhere in the catalog (another token disabled): still served, the caller read again', async () => {
    const f = await start();
    const other = await idOf(f, 'tokens', 'name', 'alice-key2');
    const out = await slowChat(f, () => change(f, 'PUT', `/tokens/${other}`, { enabled: false }, () => f.gateway.gateway.services.catalog.snapshot.tokensById.get(other)?.enabled === false));
    expect({ status: out.status, upstreamCalls: f.ups[0]!.requests.length }).toEqual({ status: 200, upstreamCalls: 1 });
  });

  it.each([
    ['token disabled', 401, (f: Fixture, id: number) => change(f, 'PUT', `/tokens/${id}`, { enabled: false }, () => f.gateway.gateway.services.catalog.snapshot.tokensById.get(id)?.enabled === false)],
    ['token deleted (was a 402 from the ledger)', 401, (f: Fixture, id: number) => change(f, 'DELETE', `/tokens/${id}`, undefined, () => !f.gateway.gateway.services.catalog.snapshot.tokensById.has(id))],
    ['token key regenerated', 401, (f: Fixture, id: number) => change(f, 'POST', `/tokens/${id}/key`, undefined, () => f.gateway.gateway.services.catalog.snapshot.tokensById.get(id)?.keyPrefix !== undefined)],
    ['model_limits set without the model', 403, (f: Fixture, id: number) => change(f, 'PUT', `/tokens/${id}`, { model_limits: ['claude-x'] }, () => f.gateway.gateway.services.catalog.snapshot.tokensById.get(id)?.modelLimits !== null)],
  ] as const)('%s mid-upload: %i in the envelope authentication gives now, no upstream call, nothing reserved', async (_name, status, act) => {
    const f = await start();
    const id = await aliceToken(f);
    const out = await slowChat(f, () => act(f, id));
    expect({ ...envelope(out), upstreamCalls: upstreamCalls(f), reservations: await reservations(f) }).toEqual({ ...(await refusalNow(f)), upstreamCalls: 0, reservations: 0 });
    expect(out.status).toBe(status);
    expect(out.json.error.message).toMatch(/\(request id: /);
  });

  it('user disabled mid-upload: 403 as authentication gives, no upstream call', async () => {
    const f = await start();
    const id = await alice(f);
    const out = await slowChat(f, () => change(f, 'PUT', `/users/${id}`, { enabled: false }, () => f.gateway.gateway.services.catalog.snapshot.usersById.get(id)?.enabled === false));
    expect({ ...envelope(out), upstreamCalls: upstreamCalls(f), reservations: await reservations(f) }).toEqual({ ...(await refusalNow(f)), upstreamCalls: 0, reservations: 0 });
    expect(out.status).toBe(403);
  });

  it('a token that expires mid-upload (no catalog change meanwhile): 401 token_expired', async () => {
    const f = await start();
    const id = await aliceToken(f);
    const expiresAt = Math.floor(Date.now() / 1000) + 2;
    await change(f, 'PUT', `/tokens/${id}`, { expires_at: expiresAt }, () => f.gateway.gateway.services.catalog.snapshot.tokensById.get(id)?.expiresAt === expiresAt);
    const out = await slowChat(f, async () => {
      expect(await waitFor(() => Date.now() >= expiresAt * 1000 + 50, 4000)).toBe(true);
    });
    expect({ ...envelope(out), upstreamCalls: upstreamCalls(f) }).toEqual({ status: 401, type: 'authentication_error', code: 'token_expired', upstreamCalls: 0 });
    expect(await refusalNow(f)).toEqual(envelope(out));
  });

  it("the user moved to another group mid-upload: the new group's channel serves it", async () => {
    const f = await start();
    const id = await alice(f);
    const out = await slowChat(f, () => change(f, 'PUT', `/users/${id}`, { group: 'vip' }, () => f.gateway.gateway.services.catalog.snapshot.usersById.get(id)?.group === 'vip'));
    expect({ status: out.status, defaultChannel: f.ups[0]!.requests.length, vipChannel: f.ups[1]!.requests.length }).toEqual({ status: 200, defaultChannel: 0, vipChannel: 1 });
  });

  it('token quota lowered mid-upload: 402 from the ledger, no upstream call', async () => {
    const f = await start();
    const id = await aliceToken(f);
    const out = await slowChat(f, () => change(f, 'POST', `/tokens/${id}/quota`, { delta: -99_999_999 }, () => f.gateway.gateway.services.catalog.snapshot.tokensById.get(id)?.remainQuota === 1));
    expect({ status: out.status, upstreamCalls: upstreamCalls(f) }).toEqual({ status: 402, upstreamCalls: 0 });
  });
});

describe('Anthropic routes: the same re-check, in the Anthropic envelope', () => {
  const anthropicHeaders = { 'x-api-key': userKey, 'anthropic-version': '2023-06-01' };
  const messagesBody = { model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: `hi ${padding}` }] };
  const disable = (f: Fixture, id: number) => change(f, 'PUT', `/tokens/${id}`, { enabled: false }, () => f.gateway.gateway.services.catalog.snapshot.tokensById.get(id)?.enabled === false);

  it('control: the Anthropic SDK is served on /v1/messages and its count_tokens (counted by the channel)', async () => {
    const f = await start();
    const client = new Anthropic({ apiKey: userKey, baseURL: f.url, maxRetries: 0 });
    await client.messages.create({ model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    f.ups[2]!.enqueue({ json: { input_tokens: 7 } });
    expect((await client.messages.countTokens({ model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] })).input_tokens).toBe(7);
    expect(f.ups[2]!.requests.length).toBe(2);
  });

  it.each(['/v1/messages', '/v1/messages/count_tokens'])('%s with the token disabled mid-upload: 401 authentication_error, no upstream call', async (path) => {
    const f = await start();
    const id = await aliceToken(f);
    const out = await slowPost(f, path, anthropicHeaders, messagesBody, () => disable(f, id));
    expect({ status: out.status, body: out.json, upstreamCalls: upstreamCalls(f) }).toEqual({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: expect.stringMatching(/^This API key has been disabled\. \(request id: /) }, request_id: expect.any(String) }, upstreamCalls: 0 });
    const client = new Anthropic({ apiKey: userKey, baseURL: f.url, maxRetries: 0 });
    await expect(client.messages.create({ model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
  });
});
