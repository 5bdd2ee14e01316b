import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenaiConversationsUpstream, type FakeOpenaiConversationsUpstream } from '../fakes/fake-openai-conversations-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { serverUrls } from '../support/test-databases.js';

/**
 * From the Responses audit: a stored response's own routes with the official SDK — `responses.retrieve`,
 * `responses.inputItems.list`, `responses.cancel`, `responses.delete` (docs/behaviour.md "Stored
 * responses"). They were 404 "Invalid URL": the gateway knew which channel and key stored each response
 * and whose it was, but a client could not read one back. Now each goes to that channel with that key
 * (each key its own account), for free, and only for the user whose request made it: any other id is
 * OpenAI's 404 with no upstream call.
 */
const run = randomUUID().slice(0, 8);
const model = 'gpt-5';
const keyOf = (letter: string) => `sk-${letter.repeat(48)}`;
const alice = keyOf('a');
const bob = keyOf('b');

for (const mode of ['one process', 'two replicas sharing Redis'] as const) {
  const redisUrl = serverUrls.redis;
  describe.skipIf(mode !== 'one process' && redisUrl === undefined)(`a stored response read back, cancelled and deleted by its maker alone (${mode})`, () => {
    let gateway: TestGateway;
    let replica: TestGateway | undefined;
    let primary: FakeOpenaiConversationsUpstream;
    let fallback: FakeOpenaiConversationsUpstream;
    let channelIds: Record<string, number>;
    const sdk = (key: string, on: TestGateway) => new OpenAI({ apiKey: key, baseURL: `${on.url}/v1`, maxRetries: 0 });
    const other = () => replica ?? gateway;
    const upstreamCalls = () => primary.requests.length + fallback.requests.length;
    const settle = async () => {
      await gateway.settled();
      await replica?.settled();
    };
    const used = async (token: string) => {
      const row = await gateway.gateway.services.database.db.selectFrom('tokens').select(['used_quota']).where('name', '=', token).executeTakeFirstOrThrow();
      return Number(row.used_quota);
    };
    const raised = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as any);

    beforeAll(async () => {
      primary = await startFakeOpenaiConversationsUpstream({ keys: ['sk-up-1', 'sk-up-2'], name: `primary${run}` });
      fallback = await startFakeOpenaiConversationsUpstream({ keys: ['sk-up-f'], name: `fallback${run}` });
      const channel = (name: string, url: string, keys: string[], priority: number) => ({
        name, type: 'openai' as const, base_url: url, keys, models: [model], groups: ['default'], priority, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: { api: 'responses' as const },
      });
      const env: Record<string, string> = mode === 'one process' ? {} : { REDIS_URL: redisUrl! };
      gateway = await startTestGateway({
        env,
        config: {
          prices: { [model]: { input: 2, output: 8 } },
          channels: [channel('primary', primary.url, ['sk-up-1', 'sk-up-2'], 10), channel('fallback', fallback.url, ['sk-up-f'], 0)],
          users: ['alice', 'bob'].map((username) => ({ username, role: 'user' as const, group: 'default', enabled: true })),
          tokens: [
            { name: 'alice-key', user: 'alice', key: alice, quota: 100_000_000, expires_at: 0, enabled: true },
            { name: 'bob-key', user: 'bob', key: bob, quota: 100_000_000, expires_at: 0, enabled: true },
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

    it('its maker retrieves it and lists its input items on the channel and key that stored it, whole and streamed, for free', async () => {
      const whole = await sdk(alice, gateway).responses.create({ model, input: [{ role: 'user', content: 'remember 42' }] });
      const stream = await sdk(alice, gateway).responses.create({ model, input: 'and 43', stream: true });
      let streamedId = '';
      for await (const event of stream) if (event.type === 'response.completed') streamedId = event.response.id;
      // Two turns, the channel's two keys in turn: each response lives on its own account.
      expect(new Set([primary.responses.get(whole.id)?.key, primary.responses.get(streamedId)?.key])).toEqual(new Set(['sk-up-1', 'sk-up-2']));
      await settle();
      const before = await used('alice-key');

      const client = sdk(alice, other());
      for (const [id, text] of [[whole.id, 'remember 42'], [streamedId, 'and 43']] as const) {
        const read = await client.responses.retrieve(id);
        expect(read).toMatchObject({ id, object: 'response', status: 'completed' });
        expect(read.output_text).toBe(`primary${run} read 0 items`);
        const items = await client.responses.inputItems.list(id, { order: 'asc', limit: 5 });
        expect(items.data).toEqual([expect.objectContaining({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] })]);
      }
      // A foreground response cannot be cancelled: the upstream's own 400 comes back as it said it.
      const cancel = await raised(client.responses.cancel(whole.id));
      expect(cancel).toBeInstanceOf(OpenAI.BadRequestError);
      expect(cancel.message).toContain('Cannot cancel a synchronous response.');
      await settle();
      expect(await used('alice-key')).toBe(before);
      const rows = await gateway.gateway.services.database.db.selectFrom('logs').select(['style', 'quota', 'status', 'channel_id', 'path']).where('style', '=', 'openai-stored-responses').execute();
      expect(rows).toHaveLength(5);
      expect(rows.every((row) => Number(row.quota) === 0 && Number(row.channel_id) === channelIds.primary)).toBe(true);
      expect(rows.map((row) => row.status).sort()).toEqual([200, 200, 200, 200, 400]);
    });

    it("another user's response, one made with store: false and an unknown id are OpenAI's 404 on every route, with no upstream call", async () => {
      const made = await sdk(alice, gateway).responses.create({ model, input: 'secret' });
      const unstored = await sdk(alice, gateway).responses.create({ model, input: 'not kept', store: false });
      await settle();
      const calls = upstreamCalls();
      const cases: [string, string][] = [[bob, made.id], [alice, unstored.id], [alice, `resp_never_made_${run}`]];
      for (const [key, id] of cases) {
        const client = sdk(key, other());
        for (const call of [() => client.responses.retrieve(id), () => client.responses.inputItems.list(id), () => client.responses.cancel(id), () => client.responses.delete(id)]) {
          const error = await raised(call());
          expect(error).toBeInstanceOf(OpenAI.NotFoundError);
          expect(error.message).toContain(`Response with id '${id}' not found.`);
        }
      }
      expect(upstreamCalls()).toBe(calls);
      // A stored response is never streamed again: the gateway makes no background responses.
      const streamed = await fetch(`${other().url}/v1/responses/${made.id}?stream=true`, { headers: { authorization: `Bearer ${alice}` } });
      expect(streamed.status).toBe(400);
      expect(await streamed.json()).toMatchObject({ error: { param: 'stream', type: 'invalid_request_error' } });
      expect(upstreamCalls()).toBe(calls);
    });

    it('a response its maker deleted is forgotten: the next call on it is the 404 with no upstream call, on every replica', async () => {
      const made = await sdk(alice, gateway).responses.create({ model, input: 'short-lived' });
      await settle();
      await sdk(alice, other()).responses.delete(made.id);
      expect(primary.responses.get(made.id)?.deleted).toBe(true);
      await settle();
      const calls = upstreamCalls();
      for (const on of [gateway, other()]) expect(await raised(sdk(alice, on).responses.retrieve(made.id))).toBeInstanceOf(OpenAI.NotFoundError);
      expect(upstreamCalls()).toBe(calls);
    });
  });
}
