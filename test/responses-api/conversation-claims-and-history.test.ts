import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeOpenaiConversationsUpstream, type FakeOpenaiConversationsUpstream } from '../fakes/fake-openai-conversations-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects, createTestDatabase, type TestDatabase } from '../support/test-databases.js';

/**
 * The `conversation_owners` table as the arbiter and the memory's backup (docs/behaviour.md "Stored responses"):
 * - an id over 191 characters (the table's key length) is kept too, by its hash, so a restart does not make
 *   a long claimed or made conversation anyone's;
 * - two users claiming one unknown id at once (`allow_unknown_conversations`): the table's insert decides,
 *   before any upstream call; the loser is refused as any other user, and memory and table agree;
 * - an entry read back from the table after a restart reserves the history the row holds (twice it), not
 *   only the turn's input;
 * - `/v1/responses/compact` claims an unknown id as a turn does (it reaches the conversation too);
 * - an id over 256 characters (never remembered, so never claimable) is refused on both routes;
 * - two turns of one user on an unknown id both hold its claim: the one the upstream refused does not
 *   delete the row the other's answer goes into;
 * - a claim's answer whose channel write fails is written again; and a row left at channel 0 gets the
 *   channel of its maker's next answered turn — else, once the memory lapsed, the Conversations routes
 *   had no channel to go to (503) and the row stayed so.
 */
const run = randomUUID().slice(0, 8);
const model = 'gpt-5';
const longModel = 'gpt-5-long';
/** Compaction is routed and priced as `<model>-openai-compact`. */
const compactModel = `${model}-openai-compact`;
const keyOf = (letter: string) => `sk-${letter.repeat(48)}`;
const alice = keyOf('a');
const bob = keyOf('b');
/** Alice's key for the channel whose conversation ids are long (the create goes to a channel of its models). */
const aliceLong = keyOf('l');
/** About 12,000 tokens of history (the gateway's estimate reads characters). */
const bigText = 'The quick brown fox jumps over the lazy dog. '.repeat(1_000);

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`conversations claimed, made with long ids and reloaded (${dialect})`, () => {
    let database: TestDatabase;
    let upstream: FakeOpenaiConversationsUpstream;
    let longUpstream: FakeOpenaiConversationsUpstream;
    let gateway: TestGateway;
    const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const direct = (fake: FakeOpenaiConversationsUpstream) => new OpenAI({ apiKey: 'sk-up', baseURL: `${fake.url}/v1`, maxRetries: 0 });
    const db = () => gateway.gateway.services.database.db;
    const restart = async () => {
      await gateway.settled();
      await gateway.close();
      gateway = await startTestGateway({ databaseUrl: database.url, config: { channels: [] } as never });
    };
    /** What a turn reserved: its reservation is named by its request id. */
    const reservedBy = async (requestId: string | null) => {
      const row = await db().selectFrom('quota_reservations').select('amount').where('id', '=', requestId ?? '').executeTakeFirstOrThrow();
      return Number(row.amount);
    };
    const turn = async (key: string, conversation: string, on = model) => {
      const { data, response } = await sdk(key).responses.create({ model: on, input: 'hi', max_output_tokens: 16, conversation }).withResponse();
      return { text: data.output_text, reserved: await reservedBy(response.headers.get('x-request-id')) };
    };
    const ownerRow = (conversation: string) => db().selectFrom('conversation_owners').selectAll().where('conversation_id', '=', conversation).executeTakeFirst();
    const userIdOf = async (username: string) => Number((await db().selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id);
    const responsesTurns = () => upstream.requests.filter((request) => request.path === '/v1/responses').length;
    const refusal = (key: string, conversation: string, on = model) =>
      sdk(key)
        .responses.create({ model: on, input: 'mine?', conversation })
        .then(() => undefined)
        .catch((caught: unknown) => caught);

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      upstream = await startFakeOpenaiConversationsUpstream({ keys: ['sk-up'], name: `claims${dialect}${run}` });
      // Its ids are `conv_<name>_000001`: 213 characters, past the table's 191.
      longUpstream = await startFakeOpenaiConversationsUpstream({ keys: ['sk-up'], name: `long${run}`.padEnd(200, 'x') });
      const channel = (name: string, url: string, models: string[]) => ({
        name, type: 'openai' as const, base_url: url, key: 'sk-up', models, groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: { api: 'responses' as const },
      });
      gateway = await startTestGateway({
        databaseUrl: database.url,
        config: {
          allow_unknown_conversations: true,
          prices: { [model]: { input: 2, output: 8 }, [compactModel]: { input: 2, output: 8 }, [longModel]: { input: 2, output: 8 } },
          channels: [channel('claims', upstream.url, [model, compactModel]), channel('long', longUpstream.url, [longModel])],
          users: ['alice', 'bob'].map((username) => ({ username, role: 'user' as const, group: 'default', enabled: true })),
          tokens: [
            { name: 'alice-key', user: 'alice', key: alice, quota: 1_000_000_000, expires_at: 0, enabled: true },
            { name: 'alice-long', user: 'alice', key: aliceLong, quota: 1_000_000_000, expires_at: 0, enabled: true, model_limits: [longModel] },
            { name: 'bob-key', user: 'bob', key: bob, quota: 1_000_000_000, expires_at: 0, enabled: true },
          ],
        },
      });
    });
    afterAll(async () => {
      await gateway?.close();
      await upstream?.close();
      await longUpstream?.close();
      await database?.drop();
    });

    it('a conversation id over 191 characters, claimed or made, is still its owner\'s after a restart without Redis', async () => {
      const outside = await direct(longUpstream).conversations.create();
      expect(outside.id.length).toBeGreaterThan(191);
      expect((await turn(alice, outside.id, longModel)).text).toMatch(/read 0 items$/);
      const made = await sdk(aliceLong).conversations.create();
      expect(made.id.length).toBeGreaterThan(191);
      await restart();

      const calls = longUpstream.requests.length;
      expect(await refusal(bob, outside.id, longModel)).toBeInstanceOf(OpenAI.BadRequestError);
      expect(await refusal(bob, made.id, longModel)).toBeInstanceOf(OpenAI.BadRequestError);
      expect(await sdk(bob).conversations.retrieve(made.id).catch((caught: unknown) => caught)).toBeInstanceOf(OpenAI.NotFoundError);
      expect(longUpstream.requests.length, 'no upstream call for Bob').toBe(calls);
      expect((await turn(alice, outside.id, longModel)).text).toMatch(/read 2 items$/);
      expect(await sdk(aliceLong).conversations.retrieve(made.id)).toMatchObject({ id: made.id });

      const rows = await db().selectFrom('conversation_owners').select(['conversation_id', 'long_conversation_id']).where('long_conversation_id', 'in', [outside.id, made.id]).execute();
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(row.conversation_id).toMatch(/^sha256:[0-9a-f]{64}$/);
    });

    it('two users claiming one unknown id at once: one wins in the table and the memory, the other is refused with no upstream call', async () => {
      const { db: database } = gateway.gateway.services.database;
      for (let round = 0; round < 4; round += 1) {
        const outside = await direct(upstream).conversations.create();
        // The first turn to reach the upstream is answered slowly: the other claim is decided meanwhile.
        upstream.enqueueFault({ kind: 'slow-first-byte', delayMs: 200 });
        const before = upstream.requests.filter((request) => request.path === '/v1/responses').length;
        const [ofAlice, ofBob] = await Promise.allSettled([sdk(alice).responses.create({ model, input: 'mine', conversation: outside.id }), sdk(bob).responses.create({ model, input: 'mine', conversation: outside.id })]);
        const outcomes = [ofAlice, ofBob].map((outcome) => outcome.status);
        expect(outcomes.sort(), `round ${round}`).toEqual(['fulfilled', 'rejected']);
        const loser = [ofAlice, ofBob].find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
        expect(loser.reason).toBeInstanceOf(OpenAI.BadRequestError);
        expect(loser.reason.error).toMatchObject({ param: 'conversation' });
        expect(upstream.requests.filter((request) => request.path === '/v1/responses').length - before, 'one upstream turn').toBe(1);
        await gateway.settled();
        const winner = ofAlice.status === 'fulfilled' ? 'alice' : 'bob';
        const winnerId = Number((await database.selectFrom('users').select('id').where('username', '=', winner).executeTakeFirstOrThrow()).id);
        const row = await database.selectFrom('conversation_owners').selectAll().where('conversation_id', '=', outside.id).executeTakeFirstOrThrow();
        expect(Number(row.user_id)).toBe(winnerId);
        expect(Number(row.channel_id)).toBeGreaterThan(0);
        expect((await gateway.gateway.services.relay.responses.recall(outside.id))?.userId).toBe(winnerId);
      }
    });

    it('a claim whose turn got no answer is left to the next user whose turn is answered', async () => {
      const outside = await direct(upstream).conversations.create();
      upstream.enqueueFault({ kind: 'status', status: 400 });
      expect(await refusal(alice, outside.id)).toBeInstanceOf(OpenAI.BadRequestError);
      await gateway.settled();
      expect((await turn(bob, outside.id)).text).toMatch(/read 0 items$/);
      expect(await refusal(alice, outside.id)).toBeInstanceOf(OpenAI.BadRequestError);
    });

    it('two turns of one user on an unknown id, the claiming one refused upstream after the other began: the row keeps the other\'s answer, and the id stays the user\'s after a restart', async () => {
      const outside = await direct(upstream).conversations.create();
      const before = responsesTurns();
      // The claiming turn's upstream refuses it late; the other turn, which found the claim, is answered after that.
      upstream.enqueueFault({ kind: 'status', status: 400, delayMs: 1_000 });
      upstream.enqueueFault({ kind: 'slow-first-byte', delayMs: 2_500 });
      const claiming = refusal(alice, outside.id);
      await vi.waitFor(() => expect(responsesTurns()).toBe(before + 1), { timeout: 10_000, interval: 20 });
      const answered = turn(alice, outside.id);
      expect(await claiming).toBeInstanceOf(OpenAI.BadRequestError);
      expect((await answered).text).toMatch(/read 0 items$/);
      await gateway.settled();
      expect(await ownerRow(outside.id), 'the answered turn\'s channel, in the row the refused one had made').toMatchObject({ user_id: await userIdOf('alice'), channel_id: expect.any(Number) });
      expect(Number((await ownerRow(outside.id))?.channel_id)).toBeGreaterThan(0);

      await restart();
      const calls = upstream.requests.length;
      expect(await refusal(bob, outside.id)).toBeInstanceOf(OpenAI.BadRequestError);
      expect(upstream.requests.length, 'no upstream call for Bob').toBe(calls);
      expect((await turn(alice, outside.id)).text).toMatch(/read 2 items$/);
    });

    it('a claim\'s answer whose channel write fails is written again: after a restart its maker still reaches it on the Conversations routes', async () => {
      const outside = await direct(upstream).conversations.create();
      const written = vi.spyOn(gateway.gateway.services.repositories.conversationOwners, 'answerClaim').mockRejectedValueOnce(new Error('database blip'));
      try {
        expect((await turn(alice, outside.id)).text).toMatch(/read 0 items$/);
        await vi.waitFor(async () => expect(Number((await ownerRow(outside.id))?.channel_id)).toBeGreaterThan(0), { timeout: 5_000, interval: 50 });
        expect(written).toHaveBeenCalledTimes(2);
      } finally {
        written.mockRestore();
      }
      await restart();
      expect(await gateway.gateway.services.relay.responses.recall(outside.id), 'the new process remembers nothing').toBeUndefined();
      expect(await sdk(alice).conversations.retrieve(outside.id)).toMatchObject({ id: outside.id });
      expect(await refusal(bob, outside.id)).toBeInstanceOf(OpenAI.BadRequestError);
    });

    it('a claim left at channel 0 (its answer\'s write failed for good) gets the channel of its maker\'s next answered turn, and is still refused to another user', async () => {
      const outside = await direct(upstream).conversations.create();
      vi.spyOn(gateway.gateway.services.repositories.conversationOwners, 'answerClaim').mockRejectedValue(new Error('database down'));
      expect((await turn(alice, outside.id)).text).toMatch(/read 0 items$/);
      // Shutdown tries the write once more, and fails too: the new process finds the row at channel 0.
      await restart();
      expect(await ownerRow(outside.id)).toMatchObject({ user_id: await userIdOf('alice'), channel_id: 0 });
      expect(await refusal(bob, outside.id)).toBeInstanceOf(OpenAI.BadRequestError);

      expect((await turn(alice, outside.id)).text).toMatch(/read 2 items$/);
      await gateway.settled();
      await vi.waitFor(async () => expect(Number((await ownerRow(outside.id))?.channel_id)).toBeGreaterThan(0), { timeout: 5_000, interval: 50 });
      await restart();
      expect(await sdk(alice).conversations.retrieve(outside.id)).toMatchObject({ id: outside.id });
    });

    it('a conversation first named on /v1/responses/compact is claimed there: refused to another user on both routes, with no upstream call', async () => {
      const compact = (key: string, conversation: string) =>
        sdk(key)
          .responses.compact({ model, input: 'compact it', conversation } as OpenAI.Responses.ResponseCompactParams)
          .catch((caught: unknown) => caught);
      const outside = await direct(upstream).conversations.create({ items: [{ type: 'message', role: 'user', content: 'earlier' }] });
      expect(await compact(alice, outside.id)).toMatchObject({ object: 'response.compaction', output: [{ role: 'user' }, { role: 'user' }, { type: 'compaction', encrypted_content: expect.stringMatching(/compacted 1 items$/) }] });
      await gateway.settled();

      const calls = upstream.requests.length;
      const ofBob = [await compact(bob, outside.id), await refusal(bob, outside.id)];
      for (const refused of ofBob) {
        expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
        expect((refused as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ param: 'conversation', message: expect.stringContaining(`Conversation with id '${outside.id}' not found.`) });
      }
      expect(upstream.requests.length, 'no upstream call for Bob').toBe(calls);
      const aliceId = Number((await db().selectFrom('users').select('id').where('username', '=', 'alice').executeTakeFirstOrThrow()).id);
      const row = await db().selectFrom('conversation_owners').selectAll().where('conversation_id', '=', outside.id).executeTakeFirstOrThrow();
      expect(Number(row.user_id)).toBe(aliceId);
      expect(Number(row.channel_id), 'the compaction\'s answer named its channel').toBeGreaterThan(0);
      expect((await turn(alice, outside.id)).text).toMatch(/read 1 items$/);

      // A compaction the upstream refused leaves the id to the next user who is answered.
      const refusedFirst = await direct(upstream).conversations.create();
      upstream.enqueueFault({ kind: 'status', status: 400 });
      expect(await compact(alice, refusedFirst.id)).toBeInstanceOf(OpenAI.BadRequestError);
      await gateway.settled();
      expect(await compact(bob, refusedFirst.id)).toMatchObject({ object: 'response.compaction' });
      expect(await compact(alice, refusedFirst.id)).toBeInstanceOf(OpenAI.BadRequestError);
    });

    it('a conversation id over 256 characters is refused on /v1/responses and /compact (400 naming conversation), with no upstream call', async () => {
      const tooLong = `conv_${'x'.repeat(300)}`;
      const calls = upstream.requests.length;
      const refusals = [
        await refusal(alice, tooLong),
        await sdk(alice)
          .responses.create({ model, input: 'mine?', conversation: { id: tooLong }, stream: true })
          .catch((caught: unknown) => caught),
        await sdk(alice)
          .responses.compact({ model, input: 'compact it', conversation: tooLong } as OpenAI.Responses.ResponseCompactParams)
          .catch((caught: unknown) => caught),
      ];
      for (const refused of refusals) {
        expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
        expect((refused as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ param: 'conversation', message: expect.stringContaining(`Conversation with id '${tooLong.slice(0, 256)}' not found.`) });
      }
      expect(upstream.requests.length, 'no upstream call').toBe(calls);
    });

    it('the first turn after a restart reserves the history the conversation holds, as the memory did', async () => {
      const items = [{ type: 'message' as const, role: 'user' as const, content: bigText }];
      const kept = await sdk(alice).conversations.create({ items });
      const reloaded = await sdk(alice).conversations.create({ items });
      // Items added on the Conversations route count too (the row is written once the history doubled).
      const grown = await sdk(alice).conversations.create();
      await sdk(alice).conversations.items.create(grown.id, { items });

      const withMemory = await turn(alice, kept.id);
      await restart();
      expect(await gateway.gateway.services.relay.responses.recall(reloaded.id), 'the new process remembers nothing').toBeUndefined();
      const afterRestart = await turn(alice, reloaded.id);
      const grownAfterRestart = await turn(alice, grown.id);
      // The turn's own input and output are a few hundred quota units; the history about 11,000.
      expect(withMemory.reserved).toBeGreaterThan(10_000);
      expect(afterRestart.reserved).toBeGreaterThanOrEqual(withMemory.reserved);
      expect(grownAfterRestart.reserved).toBeGreaterThanOrEqual(withMemory.reserved);
    });
  });
}
