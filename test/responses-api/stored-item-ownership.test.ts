import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedReply, type ScriptedRequest, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { errorReply, responsesStream, responsesWhole } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { serverUrls } from '../support/test-databases.js';

/**
 * Stored output items belong to the user whose request made them (docs/behaviour.md "Stored responses").
 * Every user of the gateway shares the channel's OpenAI account, so OpenAI would read any stored item back
 * to whoever names its id: an `item_reference` (or a passed-back item, `{ type: "reasoning", id }`) naming
 * an item another user's request produced is refused as an unknown id — 400 naming `input`, nothing
 * charged, no upstream call — on one process, and across replicas sharing Redis.
 *
 * The upstreams store what they make, as OpenAI does: each answer's items get their own ids, and a request
 * that references a stored item has its content read back into the answer (an unknown one is OpenAI's 404).
 */
const run = randomUUID().slice(0, 8);
const model = 'gpt-5';
const alice = `sk-${'a'.repeat(48)}`;
const bob = `sk-${'b'.repeat(48)}`;

function storingItemsUpstream(name: string) {
  const items = new Map<string, string>();
  let made = 0;
  return (request: ScriptedRequest): ScriptedReply => {
    const body = request.body as Record<string, unknown>;
    const input = Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : [];
    const readBack: string[] = [];
    for (const item of input) {
      if (typeof item.id !== 'string') continue;
      const text = items.get(item.id);
      if (text === undefined) return { status: 404, json: { error: { message: `Item with id '${item.id}' not found.`, type: 'invalid_request_error', param: 'input', code: null } } };
      readBack.push(text);
    }
    made += 1;
    const tag = `${name}_${run}_${made}`;
    const secret = `secret ${tag}`;
    const text = readBack.length === 0 ? secret : `you referenced: ${readBack.join(' | ')}`;
    const answer = { id: `resp_${tag}`, text, thinking: { text: 'thinking', signature: 'enc' }, tools: [{ id: `call_${tag}`, name: 'lookup', args: '{}' }], usage: { input: 10, output: 2 } };
    const reply = body.stream === true ? responsesStream(answer) : responsesWhole(answer);
    // The fake's fixed item ids made unique per answer, as OpenAI's are.
    const unique = JSON.parse(JSON.stringify(reply).replaceAll('msg_up1', `msg_${tag}`).replaceAll('rs_up1', `rs_${tag}`).replaceAll('fc_up0', `fc_${tag}`)) as ScriptedReply;
    if (body.store !== false) for (const id of [`msg_${tag}`, `rs_${tag}`, `fc_${tag}`]) items.set(id, secret);
    return unique;
  };
}

const itemsOf = (response: { output: { id?: string; type: string }[] }) => Object.fromEntries(response.output.map((item) => [item.type, item.id!]));

for (const mode of ['one process', 'two replicas sharing Redis'] as const) {
  const redisUrl = serverUrls.redis;
  describe.skipIf(mode !== 'one process' && redisUrl === undefined)(`stored items belong to their user (${mode})`, () => {
    let gateway: TestGateway;
    let replica: TestGateway | undefined;
    let upstreams: { primary: ScriptedUpstream; fallback: ScriptedUpstream };
    let channelIds: Record<string, number>;
    const sdk = (key: string, on: TestGateway) => new OpenAI({ apiKey: key, baseURL: `${on.url}/v1`, maxRetries: 0 });
    /** Where Bob's requests arrive: the other replica when there is one. */
    const bobsGateway = () => replica ?? gateway;
    const upstreamCalls = () => upstreams.primary.requests.length + upstreams.fallback.requests.length;
    const bobsBooks = async () => {
      const { db } = gateway.gateway.services.database;
      const token = await db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('name', '=', 'bob-key').executeTakeFirstOrThrow();
      const reservations = await db.selectFrom('quota_reservations').select(['id']).execute();
      return { remain: Number(token.remain_quota), used: Number(token.used_quota), reservations: reservations.length };
    };

    beforeAll(async () => {
      upstreams = { primary: await startScriptedUpstream({ fallback: storingItemsUpstream('primary') }), fallback: await startScriptedUpstream({ fallback: storingItemsUpstream('fallback') }) };
      const channel = (name: string, url: string, priority: number) => ({
        name, type: 'openai' as const, base_url: url, key: 'sk-up', models: [model, `${model}-openai-compact`], groups: ['default'], priority, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: { api: 'responses' as const },
      });
      const env: Record<string, string> = mode === 'one process' ? {} : { REDIS_URL: redisUrl! };
      gateway = await startTestGateway({
        env,
        config: {
          prices: { [model]: { input: 2, output: 8 }, [`${model}-openai-compact`]: { input: 2, output: 8 } },
          channels: [channel('primary', upstreams.primary.url, 10), channel('fallback', upstreams.fallback.url, 0)],
          users: [
            { username: 'alice', role: 'user', group: 'default', enabled: true },
            { username: 'bob', role: 'user', group: 'default', enabled: true },
          ],
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
      await upstreams?.primary.close();
      await upstreams?.fallback.close();
    });

    it("an item_reference or a passed-back item naming Alice's stored item is refused for Bob (400 naming input, no upstream call, nothing charged); Alice reads it back", async () => {
      const whole = await sdk(alice, gateway).responses.create({ model, input: 'tell me a secret' });
      const stream = sdk(alice, gateway).responses.stream({ model, input: 'tell me another' });
      const streamed = await stream.finalResponse();
      await gateway.settled();
      await replica?.settled();
      for (const answer of [whole, streamed]) {
        const ids = itemsOf(answer);
        expect(Object.keys(ids).sort()).toEqual(['function_call', 'message', 'reasoning']);
        const before = { calls: upstreamCalls(), books: await bobsBooks() };
        for (const input of [
          [{ role: 'user' as const, content: 'what did it say?' }, { type: 'item_reference' as const, id: ids.message! }],
          [{ role: 'user' as const, content: 'what did it think?' }, { type: 'reasoning' as const, id: ids.reasoning!, summary: [] }],
          [{ type: 'item_reference' as const, id: ids.function_call! }, { type: 'function_call_output' as const, call_id: 'call_x', output: 'ok' }],
        ]) {
          const error = await sdk(bob, bobsGateway()).responses.create({ model, input }).catch((caught: unknown) => caught as any);
          expect(error, JSON.stringify(input)).toBeInstanceOf(OpenAI.BadRequestError);
          expect(error.error).toMatchObject({ type: 'invalid_request_error', param: 'input', message: expect.stringContaining(input.find((item) => 'id' in item)!.id as string) });
          const streamedError = await sdk(bob, bobsGateway()).responses.create({ model, input, stream: true }).catch((caught: unknown) => caught as any);
          expect(streamedError.status).toBe(400);
        }
        const compact = await fetch(`${bobsGateway().url}/v1/responses/compact`, {
          method: 'POST',
          headers: { authorization: `Bearer ${bob}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model, input: [{ type: 'item_reference', id: ids.message }] }),
        });
        expect(compact.status).toBe(400);
        await gateway.settled();
        await replica?.settled();
        expect(upstreamCalls(), 'no upstream read anything back for Bob').toBe(before.calls);
        expect(await bobsBooks(), 'nothing reserved or charged').toEqual(before.books);
      }
      // Alice reads her own item back.
      const mine = await sdk(alice, bobsGateway()).responses.create({ model, input: [{ role: 'user', content: 'again?' }, { type: 'item_reference', id: itemsOf(whole).message! }] });
      expect(mine.output_text).toContain('you referenced: secret');
    });

    it("an item referenced alone goes to the channel that stored it, over priority; Bob's own items are his", async () => {
      upstreams.primary.enqueue(errorReply('openai-responses', 500, 'primary is down'));
      const first = await sdk(bob, gateway).responses.create({ model, input: 'on the fallback' });
      expect(first.id).toMatch(/^resp_fallback_/);
      await gateway.settled();
      const primaryBefore = upstreams.primary.requests.length;
      const next = await sdk(bob, bobsGateway()).responses.create({ model, input: [{ role: 'user', content: 'and?' }, { type: 'item_reference', id: itemsOf(first).message! }] });
      expect(next.id).toMatch(/^resp_fallback_/);
      expect(next.output_text).toContain('you referenced: secret');
      expect(upstreams.primary.requests.length).toBe(primaryBefore);
      expect(await bobsGateway().gateway.services.relay.responses.recall(itemsOf(first).message!)).toMatchObject({ channelId: channelIds.fallback });
    });

    it('an item id the gateway does not know is routed as a request without history (the upstream answers for it)', async () => {
      const before = upstreamCalls();
      const error = await sdk(bob, bobsGateway())
        .responses.create({ model, input: [{ role: 'user', content: 'x' }, { type: 'item_reference', id: `msg_made_elsewhere_${run}` }] })
        .catch((caught: unknown) => caught as any);
      expect(error.status).toBe(404);
      expect(upstreamCalls(), 'the upstream was asked').toBeGreaterThan(before);
    });

    it('a store: false answer leaves no items to guard (nothing upstream can read them back)', async () => {
      const answer = await sdk(alice, gateway).responses.create({ model, input: 'not stored', store: false });
      await gateway.settled();
      expect(await gateway.gateway.services.relay.responses.recall(itemsOf(answer).message!)).toBeUndefined();
    });
  });
}
