import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenaiConversationsUpstream, type FakeOpenaiConversationsUpstream } from '../fakes/fake-openai-conversations-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects, createTestDatabase, serverUrls, type TestDatabase } from '../support/test-databases.js';

/**
 * OpenAI's Conversations API through the gateway (docs/behaviour.md "Stored responses"), with the official
 * SDK's `client.conversations.*`. A conversation is made on one of the caller's Responses channels and
 * remembered with its maker, channel and key: its later requests (the Conversations routes and `conversation`
 * on /v1/responses) go there with that key, and are refused for every other user as an unknown id (404 on
 * the Conversations routes, 400 naming `conversation` on /v1/responses), with no upstream call and nothing
 * charged; so is an id the gateway does not know. Free, but keyed and limited by the token's models.
 */
const run = randomUUID().slice(0, 8);
const model = 'gpt-5';
const miniModel = 'gpt-5-mini';
const chatModel = 'gpt-4o';
const keyOf = (letter: string) => `sk-${letter.repeat(48)}`;
const alice = keyOf('a');
const bob = keyOf('b');
const mini = keyOf('c');
const chatOnly = keyOf('d');

for (const mode of ['one process', 'two replicas sharing Redis'] as const) {
  const redisUrl = serverUrls.redis;
  describe.skipIf(mode !== 'one process' && redisUrl === undefined)(`the Conversations API relayed, each conversation its maker's (${mode})`, () => {
    let gateway: TestGateway;
    let replica: TestGateway | undefined;
    let primary: FakeOpenaiConversationsUpstream;
    let fallback: FakeOpenaiConversationsUpstream;
    let channelIds: Record<string, number>;
    const sdk = (key: string, on: TestGateway) => new OpenAI({ apiKey: key, baseURL: `${on.url}/v1`, maxRetries: 0 });
    /** The second replica when there is one: every later request of a test goes there. */
    const other = () => replica ?? gateway;
    const upstreamCalls = () => primary.requests.length + fallback.requests.length;
    const books = async (token: string) => {
      const { db } = gateway.gateway.services.database;
      const row = await db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('name', '=', token).executeTakeFirstOrThrow();
      const reservations = await db.selectFrom('quota_reservations').select(['id']).execute();
      return { remain: Number(row.remain_quota), used: Number(row.used_quota), reservations: reservations.length };
    };
    const settle = async () => {
      await gateway.settled();
      await replica?.settled();
    };

    beforeAll(async () => {
      // Each key of the primary is an account of its own, as OpenAI projects are.
      primary = await startFakeOpenaiConversationsUpstream({ keys: ['sk-up-1', 'sk-up-2'], name: `primary${run}` });
      fallback = await startFakeOpenaiConversationsUpstream({ keys: ['sk-up-f'], name: `fallback${run}` });
      const channel = (name: string, url: string, keys: string[], models: string[], priority: number, api: 'responses' | 'chat') => ({
        name, type: 'openai' as const, base_url: url, keys, models, groups: ['default'], priority, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: { api },
      });
      const env: Record<string, string> = mode === 'one process' ? {} : { REDIS_URL: redisUrl! };
      gateway = await startTestGateway({
        env,
        config: {
          prices: { [model]: { input: 2, output: 8 }, [miniModel]: { input: 1, output: 4 }, [chatModel]: { input: 2, output: 8 } },
          channels: [
            channel('primary', primary.url, ['sk-up-1', 'sk-up-2'], [model], 10, 'responses'),
            channel('fallback', fallback.url, ['sk-up-f'], [model, miniModel], 0, 'responses'),
            // A Chat channel holds no conversation: a key limited to its model reaches no conversation channel.
            channel('chat', fallback.url, ['sk-up-f'], [chatModel], 20, 'chat'),
          ],
          users: ['alice', 'bob', 'carol', 'dave'].map((username) => ({ username, role: 'user' as const, group: 'default', enabled: true })),
          tokens: [
            { name: 'alice-key', user: 'alice', key: alice, quota: 100_000_000, expires_at: 0, enabled: true },
            { name: 'bob-key', user: 'bob', key: bob, quota: 100_000_000, expires_at: 0, enabled: true },
            { name: 'mini-key', user: 'carol', key: mini, quota: 100_000_000, expires_at: 0, enabled: true, model_limits: [miniModel] },
            { name: 'chat-key', user: 'dave', key: chatOnly, quota: 100_000_000, expires_at: 0, enabled: true, model_limits: [chatModel] },
          ],
        },
      });
      if (mode !== 'one process') replica = await startTestGateway({ databaseUrl: gateway.databaseUrl, env, config: { channels: [] } as never });
      const rows = await gateway.gateway.services.database.db.selectFrom('channels').select(['id', 'name']).execute();
      channelIds = Object.fromEntries(rows.map((row) => [row.name, Number(row.id)]));
    });
    afterAll(async () => {
      await replica?.close();
      await gateway?.close();
      await primary?.close();
      await fallback?.close();
    });

    it('a conversation made through the gateway is read, changed and continued by its maker, on its channel with its key, for free', async () => {
      const before = await books('alice-key');
      const made = await sdk(alice, gateway).conversations.create({ metadata: { topic: 'demo' }, items: [{ type: 'message', role: 'user', content: 'remember 42' }] });
      expect(made).toMatchObject({ object: 'conversation', metadata: { topic: 'demo' } });
      expect(made.id).toMatch(new RegExp(`^conv_primary${run}_`));
      // A second one goes out with the channel's next key: each lives on its own account.
      const second = await sdk(alice, gateway).conversations.create();
      expect(new Set([primary.conversations.get(made.id)?.key, primary.conversations.get(second.id)?.key])).toEqual(new Set(['sk-up-1', 'sk-up-2']));
      await settle();

      const client = sdk(alice, other());
      for (const conversation of [made, second]) {
        expect(await client.conversations.retrieve(conversation.id)).toMatchObject({ id: conversation.id, object: 'conversation' });
        expect(await client.conversations.update(conversation.id, { metadata: { topic: 'changed' } })).toMatchObject({ metadata: { topic: 'changed' } });
        const added = await client.conversations.items.create(conversation.id, { items: [{ type: 'message', role: 'user', content: 'and 43' }] });
        expect(added).toMatchObject({ object: 'list', has_more: false });
        const page = await client.conversations.items.list(conversation.id, { order: 'asc', limit: 10 });
        expect(page.data.at(-1)).toMatchObject({ type: 'message', role: 'user' });
        const itemId = added.data[0]!.id!;
        expect(await client.conversations.items.retrieve(itemId, { conversation_id: conversation.id })).toMatchObject({ id: itemId });
        expect(await client.conversations.items.delete(itemId, { conversation_id: conversation.id })).toMatchObject({ id: conversation.id, object: 'conversation' });
        // A turn on /v1/responses reads the conversation back on its channel and key (another would not know it).
        const turn = await client.responses.create({ model, input: 'what was the number?', conversation: conversation.id });
        expect(turn.output_text).toBe(`primary${run} read ${conversation === made ? 1 : 0} items`);
        const streamed = await client.responses.create({ model, input: 'again', conversation: { id: conversation.id }, stream: true });
        let text = '';
        for await (const event of streamed) if (event.type === 'response.output_text.delta') text += event.delta;
        expect(text).toBe(`primary${run} read ${conversation === made ? 3 : 2} items`);
      }
      expect(await client.conversations.delete(second.id)).toEqual({ id: second.id, object: 'conversation.deleted', deleted: true });
      await settle();
      const after = await books('alice-key');
      // Only the four Responses turns were charged: the Conversations calls cost nothing.
      const { db } = gateway.gateway.services.database;
      const rows = await db.selectFrom('logs').select(['style', 'quota', 'status', 'channel_id', 'path']).where('token_name', '=', 'alice-key').execute();
      const conversationRows = rows.filter((row) => row.style === 'openai-conversations');
      expect(conversationRows).toHaveLength(2 + 2 * 6 + 1);
      expect(conversationRows.every((row) => Number(row.quota) === 0 && row.status === 200 && Number(row.channel_id) === channelIds.primary)).toBe(true);
      const charged = rows.filter((row) => row.style !== 'openai-conversations').reduce((sum, row) => sum + Number(row.quota), 0);
      expect(charged).toBeGreaterThan(0);
      expect(after.used - before.used).toBe(charged);
      // The deleted one is forgotten by every replica (the one that made it keeps a copy of its own): its
      // maker's next request is OpenAI's 404, with no upstream call.
      const calls = upstreamCalls();
      for (const on of [gateway, other()]) {
        expect(await sdk(alice, on).conversations.retrieve(second.id).catch((caught: unknown) => caught as any)).toBeInstanceOf(OpenAI.NotFoundError);
        expect(await sdk(alice, on).responses.create({ model, input: 'gone?', conversation: second.id }).catch((caught: unknown) => caught as any)).toBeInstanceOf(OpenAI.BadRequestError);
      }
      expect(upstreamCalls()).toBe(calls);
    });

    it("another user's conversation, or one the gateway does not know, is unknown to Bob on every route: no upstream call, nothing charged", async () => {
      const made = await sdk(alice, gateway).conversations.create({ items: [{ type: 'message', role: 'user', content: 'secret' }] });
      const item = (await sdk(alice, gateway).conversations.items.list(made.id)).data[0]!.id!;
      await settle();
      const calls = upstreamCalls();
      const before = await books('bob-key');
      const client = sdk(bob, other());
      for (const id of [made.id, `conv_never_made_${run}`]) {
        const refusals = [
          () => client.conversations.retrieve(id),
          () => client.conversations.update(id, { metadata: { mine: 'now' } }),
          () => client.conversations.delete(id),
          () => client.conversations.items.list(id),
          () => client.conversations.items.create(id, { items: [{ type: 'message', role: 'user', content: 'x' }] }),
          () => client.conversations.items.retrieve(item, { conversation_id: id }),
          () => client.conversations.items.delete(item, { conversation_id: id }),
        ];
        for (const refusal of refusals) {
          const error = await refusal().catch((caught: unknown) => caught as any);
          expect(error).toBeInstanceOf(OpenAI.NotFoundError);
          expect(error.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining(`Conversation with id '${id}' not found.`) });
        }
        for (const stream of [false, true]) {
          const error = await client.responses.create({ model, input: 'read it', conversation: id, stream }).catch((caught: unknown) => caught as any);
          expect(error).toBeInstanceOf(OpenAI.BadRequestError);
          expect(error.error).toMatchObject({ type: 'invalid_request_error', param: 'conversation', message: expect.stringContaining(`Conversation with id '${id}' not found.`) });
        }
        const compact = await fetch(`${other().url}/v1/responses/compact`, {
          method: 'POST',
          headers: { authorization: `Bearer ${bob}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model, input: 'x', conversation: id }),
        });
        expect(compact.status).toBe(400);
      }
      await settle();
      expect(upstreamCalls(), 'no upstream was asked').toBe(calls);
      expect(await books('bob-key'), 'nothing reserved or charged').toEqual(before);
      // Alice's conversation is still hers, untouched.
      expect(primary.conversations.get(made.id)).toMatchObject({ deleted: false, metadata: {} });
      expect((await sdk(alice, other()).responses.create({ model, input: 'still there?', conversation: made.id })).output_text).toBe(`primary${run} read 1 items`);
    });

    it('a create falls over to the next Responses channel; its conversation then goes there, over priority', async () => {
      primary.enqueueFault({ kind: 'status', status: 500 });
      const made = await sdk(bob, gateway).conversations.create();
      expect(made.id).toMatch(new RegExp(`^conv_fallback${run}_`));
      await settle();
      expect(await other().gateway.services.relay.responses.recall(made.id)).toMatchObject({ channelId: channelIds.fallback });
      const primaryBefore = primary.requests.length;
      const turn = await sdk(bob, other()).responses.create({ model, input: 'hi', conversation: made.id });
      expect(turn.output_text).toBe(`fallback${run} read 0 items`);
      expect(primary.requests.length).toBe(primaryBefore);
    });

    it('a body that is not a JSON object is a 400 before any upstream call', async () => {
      const made = await sdk(alice, gateway).conversations.create();
      const calls = upstreamCalls();
      for (const [path, body] of [['/v1/conversations', '[1]'], [`/v1/conversations/${made.id}/items`, '"x"'], [`/v1/conversations/${made.id}`, 'null']] as const) {
        const answer = await fetch(`${other().url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' }, body });
        expect(answer.status, path).toBe(400);
        expect(await answer.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
      }
      expect(upstreamCalls()).toBe(calls);
    });

    it("the channel is chosen by the models the caller's key may use; none, a 503; a bad key, a 401", async () => {
      const made = await sdk(mini, gateway).conversations.create();
      expect(made.id).toMatch(new RegExp(`^conv_fallback${run}_`));
      const calls = upstreamCalls();
      const none = await sdk(chatOnly, gateway).conversations.create().catch((caught: unknown) => caught as any);
      expect(none.status).toBe(503);
      const unauthorized = await sdk(keyOf('z'), gateway).conversations.create().catch((caught: unknown) => caught as any);
      expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(upstreamCalls()).toBe(calls);
    });
  });
}

describe('allow_unknown_conversations: true (an operator whose conversations are made outside the gateway)', () => {
  let database: TestDatabase;
  let gateway: TestGateway;
  let upstream: FakeOpenaiConversationsUpstream;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    upstream = await startFakeOpenaiConversationsUpstream({ keys: ['sk-up'], name: `outside${run}` });
    gateway = await startTestGateway({
      databaseUrl: database.url,
      config: {
        allow_unknown_conversations: true,
        prices: { [model]: { input: 2, output: 8 } },
        channels: [{ name: 'responses', type: 'openai', base_url: upstream.url, key: 'sk-up', models: [model], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: { api: 'responses' } }],
        users: ['alice', 'bob'].map((username) => ({ username, role: 'user' as const, group: 'default', enabled: true })),
        tokens: [
          { name: 'alice-key', user: 'alice', key: alice, quota: 100_000_000, expires_at: 0, enabled: true },
          { name: 'bob-key', user: 'bob', key: bob, quota: 100_000_000, expires_at: 0, enabled: true },
        ],
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
    await database?.drop();
  });

  it('a conversation made on the account directly is claimed by the first user whose turn names it, and refused to the next', async () => {
    const outside = await new OpenAI({ apiKey: 'sk-up', baseURL: `${upstream.url}/v1`, maxRetries: 0 }).conversations.create();
    const turn = await new OpenAI({ apiKey: alice, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).responses.create({ model, input: 'hi', conversation: outside.id });
    expect(turn.output_text).toBe(`outside${run} read 0 items`);
    await gateway.settled();
    const error = await new OpenAI({ apiKey: bob, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).responses.create({ model, input: 'mine?', conversation: outside.id }).catch((caught: unknown) => caught as any);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(await new OpenAI({ apiKey: alice, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).conversations.items.list(outside.id)).toMatchObject({ data: expect.any(Array) });
  });

  it('a claim is recorded in the database: after a restart without Redis the conversation is still its claimer\'s, and nobody else claims it', async () => {
    const outside = await new OpenAI({ apiKey: 'sk-up', baseURL: `${upstream.url}/v1`, maxRetries: 0 }).conversations.create();
    await new OpenAI({ apiKey: alice, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).responses.create({ model, input: 'hi', conversation: outside.id });
    await gateway.settled();
    await gateway.close();
    gateway = await startTestGateway({ databaseUrl: database.url, config: { channels: [] } as never });
    const bobs = await new OpenAI({ apiKey: bob, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).responses.create({ model, input: 'mine?', conversation: outside.id }).catch((caught: unknown) => caught as any);
    expect(bobs).toBeInstanceOf(OpenAI.BadRequestError);
    const turn = await new OpenAI({ apiKey: alice, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).responses.create({ model, input: 'again', conversation: outside.id });
    expect(turn.output_text).toBe(`outside${run} read 2 items`);
    const rows = await gateway.gateway.services.database.db.selectFrom('conversation_owners').select(['conversation_id', 'user_id']).where('conversation_id', '=', outside.id).execute();
    expect(rows).toHaveLength(1);
  });
});

describe('a conversation outlives the memory: 72 hours idle, its maker still reaches it (one process, its clock moved)', () => {
  let gateway: TestGateway;
  let upstream: FakeOpenaiConversationsUpstream;
  let clock = Date.now();
  const hours = (count: number) => count * 3600_000;
  beforeAll(async () => {
    upstream = await startFakeOpenaiConversationsUpstream({ keys: ['sk-up'], name: `clock${run}` });
    gateway = await startTestGateway({
      now: () => clock,
      config: {
        prices: { [model]: { input: 2, output: 8 } },
        channels: [{ name: 'responses', type: 'openai', base_url: upstream.url, key: 'sk-up', models: [model], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: { api: 'responses' } }],
        users: ['alice', 'bob'].map((username) => ({ username, role: 'user' as const, group: 'default', enabled: true })),
        tokens: [
          { name: 'alice-key', user: 'alice', key: alice, quota: 100_000_000, expires_at: 0, enabled: true },
          { name: 'bob-key', user: 'bob', key: bob, quota: 100_000_000, expires_at: 0, enabled: true },
        ],
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('a read on the Conversations routes keeps its memory; 72 hours without any request the memory forgets it, and the database still knows its maker', async () => {
    const client = new OpenAI({ apiKey: alice, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const made = await client.conversations.create();
    clock += hours(71);
    await client.conversations.items.list(made.id);
    clock += hours(71);
    expect((await client.responses.create({ model, input: 'still mine?', conversation: made.id })).output_text).toBe(`clock${run} read 0 items`);
    clock += hours(73);
    expect(await gateway.gateway.services.relay.responses.recall(made.id), 'the memory has forgotten it').toBeUndefined();
    expect((await client.responses.create({ model, input: 'and now?', conversation: made.id })).output_text).toBe(`clock${run} read 2 items`);
    expect(await client.conversations.retrieve(made.id)).toMatchObject({ id: made.id });
    clock += hours(73);
    const calls = upstream.requests.length;
    const bobs = new OpenAI({ apiKey: bob, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    expect(await bobs.responses.create({ model, input: 'mine?', conversation: made.id }).catch((caught: unknown) => caught as any)).toBeInstanceOf(OpenAI.BadRequestError);
    expect((await bobs.conversations.retrieve(made.id).catch((caught: unknown) => caught as any)).status).toBe(404);
    expect(upstream.requests.length).toBe(calls);
  });
});

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`a conversation outlives a gateway restart without Redis, and a deleted one is forgotten (${dialect})`, () => {
    let database: TestDatabase;
    let upstream: FakeOpenaiConversationsUpstream;
    let gateway: TestGateway | undefined;
    const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway!.url}/v1`, maxRetries: 0 });
    const config = () => ({
      prices: { [model]: { input: 2, output: 8 } },
      // Two keys, two accounts: each conversation must come back with the key that made it.
      channels: [{ name: 'responses', type: 'openai' as const, base_url: upstream.url, keys: ['sk-up-1', 'sk-up-2'], models: [model], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: { api: 'responses' as const } }],
      users: ['alice', 'bob'].map((username) => ({ username, role: 'user' as const, group: 'default', enabled: true })),
      tokens: [
        { name: 'alice-key', user: 'alice', key: alice, quota: 100_000_000, expires_at: 0, enabled: true },
        { name: 'bob-key', user: 'bob', key: bob, quota: 100_000_000, expires_at: 0, enabled: true },
      ],
    });
    const restart = async () => {
      await gateway!.settled();
      await gateway!.close();
      gateway = await startTestGateway({ databaseUrl: database.url, config: { channels: [] } as never });
    };
    const ownerRows = () => gateway!.gateway.services.database.db.selectFrom('conversation_owners').selectAll().execute();

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      upstream = await startFakeOpenaiConversationsUpstream({ keys: ['sk-up-1', 'sk-up-2'], name: `restart${dialect}${run}` });
      gateway = await startTestGateway({ databaseUrl: database.url, config: config() });
    });
    afterAll(async () => {
      await gateway?.close();
      await upstream?.close();
      await database?.drop();
    });

    it("its maker's conversations (each on its own key) still work after a restart; another user's request is still refused, with no upstream call", async () => {
      const first = await sdk(alice).conversations.create({ items: [{ type: 'message', role: 'user', content: 'remember 42' }] });
      const second = await sdk(alice).conversations.create();
      expect(new Set([upstream.conversations.get(first.id)?.key, upstream.conversations.get(second.id)?.key])).toEqual(new Set(['sk-up-1', 'sk-up-2']));
      await restart();
      expect(await gateway!.gateway.services.relay.responses.recall(first.id), 'the new process remembers nothing').toBeUndefined();

      const calls = upstream.requests.length;
      for (const id of [first.id, second.id]) {
        const refused = await sdk(bob).responses.create({ model, input: 'mine now?', conversation: id }).catch((caught: unknown) => caught as any);
        expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
        expect(refused.error).toMatchObject({ param: 'conversation', message: expect.stringContaining(`Conversation with id '${id}' not found.`) });
        expect(await sdk(bob).conversations.retrieve(id).catch((caught: unknown) => caught as any)).toBeInstanceOf(OpenAI.NotFoundError);
      }
      expect(upstream.requests.length, 'no upstream call for Bob').toBe(calls);

      expect((await sdk(alice).responses.create({ model, input: 'what was the number?', conversation: first.id })).output_text).toBe(`restart${dialect}${run} read 1 items`);
      expect((await sdk(alice).responses.create({ model, input: 'hi', conversation: { id: second.id }, stream: false })).output_text).toBe(`restart${dialect}${run} read 0 items`);
      expect(await sdk(alice).conversations.retrieve(second.id)).toMatchObject({ id: second.id, object: 'conversation' });
      expect((await sdk(alice).conversations.items.list(first.id)).data.length).toBe(3);
      await restart();
      expect(await sdk(bob).conversations.items.list(first.id).catch((caught: unknown) => caught as any)).toBeInstanceOf(OpenAI.NotFoundError);
      expect((await sdk(alice).conversations.items.list(first.id)).data.length).toBe(3);
    });

    it('a conversation deleted through the gateway is forgotten: a 404 (400 on /v1/responses) with no upstream call, before and after a restart', async () => {
      const made = await sdk(alice).conversations.create();
      const kept = await sdk(alice).conversations.create();
      expect((await ownerRows()).map((row) => row.conversation_id)).toEqual(expect.arrayContaining([made.id, kept.id]));
      expect(await sdk(alice).conversations.delete(made.id)).toEqual({ id: made.id, object: 'conversation.deleted', deleted: true });
      expect((await ownerRows()).map((row) => row.conversation_id)).not.toContain(made.id);
      for (const round of ['before', 'after'] as const) {
        if (round === 'after') await restart();
        const calls = upstream.requests.length;
        const gone = await sdk(alice).conversations.retrieve(made.id).catch((caught: unknown) => caught as any);
        expect(gone, round).toBeInstanceOf(OpenAI.NotFoundError);
        expect(gone.error).toMatchObject({ message: expect.stringContaining(`Conversation with id '${made.id}' not found.`) });
        expect(await sdk(alice).conversations.delete(made.id).catch((caught: unknown) => caught as any)).toBeInstanceOf(OpenAI.NotFoundError);
        expect(await sdk(alice).responses.create({ model, input: 'still there?', conversation: made.id }).catch((caught: unknown) => caught as any)).toBeInstanceOf(OpenAI.BadRequestError);
        expect(upstream.requests.length, `no upstream call (${round})`).toBe(calls);
        // Only the deleted one is forgotten.
        expect(await sdk(alice).conversations.retrieve(kept.id)).toMatchObject({ id: kept.id });
      }
    });
  });
}

// From the realtime gaps review: the Conversations routes answered an upstream's refusal of the channel's key
// with the upstream's own message (it may name the channel's account); the text routes keep it in the log.
describe("an upstream refusing the Conversations channel's key", () => {
  let gateway: TestGateway;
  let upstream: FakeOpenaiConversationsUpstream;
  beforeAll(async () => {
    upstream = await startFakeOpenaiConversationsUpstream({ keys: ['sk-up'], name: `refused${run}` });
    gateway = await startTestGateway({
      config: {
        prices: { [model]: { input: 2, output: 8 } },
        channels: [{ name: 'responses', type: 'openai', base_url: upstream.url, key: 'sk-up', models: [model], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: { api: 'responses' } }],
        users: [{ username: 'alice', role: 'user', group: 'default', enabled: true }],
        tokens: [{ name: 'alice-key', user: 'alice', key: alice, quota: 100_000_000, expires_at: 0, enabled: true }],
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it("is a 502 in the gateway's words; the upstream's message is in the log row only", async () => {
    upstream.enqueueFault({ kind: 'status', status: 401, body: { error: { message: 'Incorrect API key provided for organization org-conv-secret.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } });
    const error = await new OpenAI({ apiKey: alice, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).conversations.create().catch((caught: unknown) => caught as any);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect({ status: error.status, type: error.type, code: error.code }).toEqual({ status: 502, type: 'server_error', code: 'upstream_credentials_refused' });
    expect(error.message).toContain("The Conversations API refused the credentials of the gateway's channel (HTTP 401)");
    expect(error.message).not.toContain('org-conv-secret');
    await gateway.settled();
    const row = await gateway.gateway.services.database.db.selectFrom('logs').select(['status', 'error']).where('style', '=', 'openai-conversations').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(Number(row.status)).toBe(502);
    expect(row.error).toContain('org-conv-secret');
  });
});
