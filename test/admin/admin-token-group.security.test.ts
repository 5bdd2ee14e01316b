/**
 * From the authorization red team: an admin (not root) could put its own token in any group — a cheaper
 * ratio, even a free one — while its wallet is one it cannot top up and its own group one it cannot change
 * (an admin manages ordinary users only). An admin's own key is now bound to its own group as a user's is;
 * only root's keys may name any group (docs/behaviour.md "Authentication").
 */
import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callAdmin, callGateway, logIn, type RequestOptions } from './admin-client.js';

let upstream: FakeOpenaiUpstream;
let gateway: TestGateway;
let adminSession: string;
let moderatorId: number;

const asAdmin = (options: RequestOptions = {}): RequestOptions => ({ ...options, headers: { cookie: adminSession, ...options.headers } });

beforeAll(async () => {
  upstream = await startFakeOpenaiUpstream({ expectedKeys: ['sk-upstream-groups'] });
  gateway = await startTestGateway({
    config: {
      groups: { default: 1, cheap: 0 },
      prices: { 'gpt-4o-mini': { input: 3, output: 15 } },
      channels: [{ name: 'both', type: 'openai', base_url: upstream.url, key: 'sk-upstream-groups', models: ['gpt-4o-mini'], groups: ['default', 'cheap'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} }],
      users: [
        { username: 'moderator', password: 'moderator-password', role: 'admin', group: 'default', quota: 1_000_000, enabled: true },
        { username: 'alice', password: 'alice-password', role: 'user', group: 'default', quota: 1_000_000, enabled: true },
      ],
    },
  });
  adminSession = await logIn(gateway, 'moderator', 'moderator-password');
  const users = (await callAdmin(gateway, 'GET', '/api/admin/users?page_size=100')).body.data.items as { id: number; username: string }[];
  moderatorId = users.find((user) => user.username === 'moderator')!.id;
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** A small chat through the openai SDK: 200, or the status and error code it raised. */
async function chat(key: string): Promise<{ status: number; code?: string | null }> {
  const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  try {
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 });
    return { status: 200 };
  } catch (error) {
    if (error instanceof APIError) return { status: error.status ?? 0, code: error.code ?? null };
    throw error;
  }
}

async function makeToken(options: RequestOptions): Promise<{ id: number; key: string }> {
  const answer = await callGateway(gateway, 'POST', '/api/admin/tokens', options);
  expect(answer.status, answer.text).toBe(200);
  return { id: answer.body.data.id, key: answer.body.data.key };
}

const walletOf = async (id: number) => Number((await callAdmin(gateway, 'GET', `/api/admin/users/${id}`)).body.data.used_quota);

describe("an admin's own token and the groups it may name", () => {
  it('an admin session’s own token in a cheaper group is refused 403 group_not_allowed when used: no upstream call, nothing spent', async () => {
    const token = await makeToken(asAdmin({ body: { name: 'cheap-own', group: 'cheap' } }));
    const calls = upstream.requests.length;
    const spent = await walletOf(moderatorId);
    expect(await chat(token.key)).toEqual({ status: 403, code: 'group_not_allowed' });
    expect(upstream.requests.length).toBe(calls);
    await gateway.settled();
    expect(await walletOf(moderatorId)).toBe(spent);
  });

  it('the same, when the admin key (root) put the admin’s token in that group', async () => {
    const token = await makeToken({ headers: { authorization: `Bearer ${gateway.adminKey}` }, body: { name: 'cheap-given', user_id: moderatorId, group: 'cheap' } });
    expect(await chat(token.key)).toEqual({ status: 403, code: 'group_not_allowed' });
  });

  it('an admin’s own token in its own group (named or not) is served and charged at that group’s ratio', async () => {
    const named = await makeToken(asAdmin({ body: { name: 'default-own', group: 'default' } }));
    const unnamed = await makeToken(asAdmin({ body: { name: 'plain-own' } }));
    const before = await walletOf(moderatorId);
    expect(await chat(named.key)).toEqual({ status: 200 });
    expect(await chat(unnamed.key)).toEqual({ status: 200 });
    await gateway.settled();
    expect(await walletOf(moderatorId)).toBeGreaterThan(before);
  });

  it('an admin moved to the cheap group by root may then use a token in it', async () => {
    const token = await makeToken(asAdmin({ body: { name: 'cheap-later', group: 'cheap' } }));
    expect((await callAdmin(gateway, 'PUT', `/api/admin/users/${moderatorId}`, { body: { group: 'cheap' } })).status).toBe(200);
    expect(await chat(token.key)).toEqual({ status: 200 });
    expect((await callAdmin(gateway, 'PUT', `/api/admin/users/${moderatorId}`, { body: { group: 'default' } })).status).toBe(200);
    expect(await chat(token.key)).toEqual({ status: 403, code: 'group_not_allowed' });
  });

  it('a root token may still name any group', async () => {
    const token = await makeToken({ headers: { authorization: `Bearer ${gateway.adminKey}` }, body: { name: 'root-cheap', group: 'cheap' } });
    expect(await chat(token.key)).toEqual({ status: 200 });
  });
});
