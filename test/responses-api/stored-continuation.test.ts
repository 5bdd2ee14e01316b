import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { errorReply, responsesStream, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { storingResponsesUpstream } from './responses-support.js';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { serverUrls } from '../support/test-databases.js';

/**
 * A Responses request that continues stored state (`previous_response_id`, `conversation`) reads that state
 * back on the account that stored it: docs/behaviour.md "Stored responses". Each upstream here stores the
 * responses it made, as OpenAI does, and refuses an id it never made with OpenAI's own 400
 * (`previous_response_not_found`). The primary channel (priority 10) fails the first turn, so the response
 * is stored on the fallback (priority 0), where every continuation must go although priority says otherwise.
 */
const model = modelOf['openai-responses'];
const run = randomUUID().slice(0, 8);

function storeOn(fixture: BillingFixture, usage: () => WireUsage = () => ({ input: 10, output: 2 })) {
  fixture.primary['openai-responses'].setFallback(storingResponsesUpstream('primary', run, (made) => ({ text: `answer ${made} from primary`, usage: usage() })));
  fixture.fallback!['openai-responses'].setFallback(storingResponsesUpstream('fallback', run, (made) => ({ text: `answer ${made} from fallback`, usage: usage() })));
}

/** The primary fails the next request (a 500: the gateway fails over to the fallback, which stores the answer). */
function failPrimaryOnce(fixture: BillingFixture) {
  fixture.primary['openai-responses'].enqueue(errorReply('openai-responses', 500, 'primary is down'));
}

const requestsTo = (upstream: ScriptedUpstream) => upstream.requests.filter((request) => request.path === '/v1/responses').length;

describe('stored responses: continued on the channel that holds them', () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    // Its conversations are made outside the gateway (the scripted upstreams have no Conversations API): claimed by their first turn.
    fixture = await startBillingFixture({ fallbacks: true, allowUnknownConversations: true });
    storeOn(fixture);
  });
  afterAll(async () => fixture?.close());

  it('previous_response_id goes to the channel that stored the response, whole and streamed, turn after turn', async () => {
    const { openai } = fixture.sdk;
    failPrimaryOnce(fixture);
    const first = await openai.responses.create({ model, input: 'first turn' });
    expect(first.id).toMatch(/^resp_fallback_/);
    const primaryBefore = requestsTo(fixture.primary['openai-responses']);

    const second = await openai.responses.create({ model, input: 'second turn', previous_response_id: first.id });
    expect(second.id).toMatch(/^resp_fallback_/);
    const stream = openai.responses.stream({ model, input: 'third turn', previous_response_id: second.id });
    const third = await stream.finalResponse();
    expect(third.id).toMatch(/^resp_fallback_/);
    expect(third.output_text).toContain('from fallback');
    expect(requestsTo(fixture.primary['openai-responses']), 'the primary never saw a continuation').toBe(primaryBefore);
    expect(fixture.fallback!['openai-responses'].requests.at(-1)?.body).toMatchObject({ previous_response_id: second.id });
  });

  it('a conversation goes to the channel of its last turn', async () => {
    const { openai } = fixture.sdk;
    const conversation = `conv_${run}`;
    failPrimaryOnce(fixture);
    const first = await openai.responses.create({ model, input: 'turn one', conversation });
    expect(first.id).toMatch(/^resp_fallback_/);
    const primaryBefore = requestsTo(fixture.primary['openai-responses']);
    const next = await openai.responses.create({ model, input: 'turn two', conversation: { id: conversation } });
    expect(next.id).toMatch(/^resp_fallback_/);
    expect(requestsTo(fixture.primary['openai-responses'])).toBe(primaryBefore);
  });

  it('a response made with store: false is not remembered (nothing upstream can continue it)', async () => {
    const { openai } = fixture.sdk;
    failPrimaryOnce(fixture);
    const unstored = await openai.responses.create({ model, input: 'not stored', store: false });
    expect(unstored.id).toMatch(/^resp_fallback_/);
    expect(await fixture.gateway.gateway.services.relay.responses.recall(unstored.id)).toBeUndefined();
    const stored = await openai.responses.create({ model, input: 'stored' });
    const servedBy = (await fixture.logs()).at(-1).channel_id;
    expect(await fixture.gateway.gateway.services.relay.responses.recall(stored.id)).toMatchObject({ channelId: Number(servedBy), contextTokens: 12 });
  });

  it('a streamed answer cut before response.completed is remembered from its opening event (the upstream may have stored it)', async () => {
    failPrimaryOnce(fixture);
    const id = `resp_cut_${run}`;
    const cut = responsesStream({ id, text: 'partial answer', usage: { input: 10, output: 2 } }, { terminal: false });
    fixture.fallback!['openai-responses'].enqueue({ ...cut, ending: 'reset' });
    const streamed = await fetch(`${fixture.gateway.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${fixture.sdk.openai.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model, input: 'a question', stream: true }) });
    expect(await streamed.text()).toContain(id);
    await fixture.settled();
    expect(await fixture.gateway.gateway.services.relay.responses.recall(id)).toMatchObject({ channelId: fixture.channelIds['fallback-openai-responses'] });
  });

  it("another user's response id is refused as unknown: 400 naming previous_response_id, no upstream call, nothing charged", async () => {
    const foreign = `resp_foreign_${run}`;
    fixture.gateway.gateway.services.relay.responses.remember(foreign, { channelId: fixture.channelIds['fallback-openai-responses']!, userId: 987_654, contextTokens: 10 });
    await fixture.settled();
    const before = { primary: requestsTo(fixture.primary['openai-responses']), fallback: requestsTo(fixture.fallback!['openai-responses']), balances: await fixture.balances(), logs: (await fixture.logs()).length };
    const error = await fixture.sdk.openai.responses.create({ model, input: 'read their history', previous_response_id: foreign }).catch((caught: unknown) => caught as any);
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', param: 'previous_response_id', message: expect.stringContaining(foreign) });
    await fixture.settled();
    expect(requestsTo(fixture.primary['openai-responses']) + requestsTo(fixture.fallback!['openai-responses'])).toBe(before.primary + before.fallback);
    expect(await fixture.balances()).toEqual(before.balances);
  });
});

describe('stored responses: the context a continuation reads back is reserved', () => {
  let fixture: BillingFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  const longHistory: WireUsage = { input: 200_000, output: 1_000 };

  it('a one-line turn on a 201k-token history the balance cannot cover is refused (402) before any upstream call', async () => {
    const firstCharge = expectedCharge(longHistory);
    const historyCost = expectedCharge({ input: longHistory.input + longHistory.output, output: 0 });
    // After the first turn the token keeps less than the history costs to read back, but far more than one line.
    fixture = await startBillingFixture({ fallbacks: true, tokenQuota: firstCharge + Math.floor(historyCost / 2) });
    storeOn(fixture, () => longHistory);
    const { openai } = fixture.sdk;
    const first = await openai.responses.create({ model, input: 'read this book', max_output_tokens: 1_000 });
    await fixture.settled();
    const before = { balances: await fixture.balances(), upstream: requestsTo(fixture.primary['openai-responses']) };
    expect(before.balances.tokenRemain).toBe(Math.floor(historyCost / 2));

    const error = await openai.responses.create({ model, input: 'and?', previous_response_id: first.id, max_output_tokens: 16 }).catch((caught: unknown) => caught as any);
    expect(error.status).toBe(402);
    await fixture.settled();
    expect(requestsTo(fixture.primary['openai-responses'])).toBe(before.upstream);
    expect(await fixture.balances()).toEqual(before.balances);
  });

  it('a continuation reserves its history at the input price and is billed what the upstream reports', async () => {
    fixture = await startBillingFixture({ fallbacks: true, tokenQuota: 10_000_000 });
    storeOn(fixture, () => longHistory);
    const { openai } = fixture.sdk;
    const first = await openai.responses.create({ model, input: 'read this book', max_output_tokens: 1_000 });
    await openai.responses.create({ model, input: 'and?', previous_response_id: first.id, max_output_tokens: 16 });
    await fixture.settled();
    const [, second] = await fixture.reservations();
    expect(second!.amount).toBeGreaterThanOrEqual(expectedCharge({ input: longHistory.input + longHistory.output, output: 16 }));
    expect(second!.settled_amount).toBe(expectedCharge(longHistory));
  });
});

describe('stored responses: compaction of a stored response', () => {
  let gateway: TestGateway;
  let upstreams: { primary: ScriptedUpstream; fallback: ScriptedUpstream };
  const compacted = { id: 'resp_cmp', object: 'response.compaction', created_at: 1760000000, output: [], usage: { input_tokens: 50, output_tokens: 5, total_tokens: 55 } };
  beforeAll(async () => {
    const { startScriptedUpstream } = await import('../fakes/scripted-upstream.js');
    upstreams = { primary: await startScriptedUpstream({ fallback: { json: compacted } }), fallback: await startScriptedUpstream({ fallback: { json: compacted } }) };
    const channel = (name: string, url: string, priority: number) => ({
      name, type: 'openai' as const, base_url: url, key: 'sk-up', models: ['gpt-5', 'gpt-5-openai-compact'], groups: ['default'], priority, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: { api: 'responses' as const },
    });
    gateway = await startTestGateway({
      config: {
        prices: { 'gpt-5': { input: 2, output: 8 }, 'gpt-5-openai-compact': { input: 2, output: 8 } },
        channels: [channel('primary', upstreams.primary.url, 10), channel('fallback', upstreams.fallback.url, 0)],
        users: [{ username: 'compactor', role: 'user', group: 'default', enabled: true }],
        tokens: [{ name: 'compactor-key', user: 'compactor', key: `sk-${'k'.repeat(48)}`, quota: 100_000_000, expires_at: 0, enabled: true }],
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstreams?.primary.close();
    await upstreams?.fallback.close();
  });

  it('goes to the channel holding the response, with its context reserved', async () => {
    const { db } = gateway.gateway.services.database;
    const user = await db.selectFrom('users').select('id').where('username', '=', 'compactor').executeTakeFirstOrThrow();
    const channels = await db.selectFrom('channels').select(['id', 'name']).execute();
    const fallbackId = Number(channels.find((row) => row.name === 'fallback')!.id);
    const stored = `resp_stored_${run}`;
    gateway.gateway.services.relay.responses.remember(stored, { channelId: fallbackId, userId: Number(user.id), contextTokens: 50_000 });
    const response = await fetch(`${gateway.url}/v1/responses/compact`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${'k'.repeat(48)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-5', previous_response_id: stored }),
    });
    expect(response.status).toBe(200);
    expect(upstreams.fallback.requests.at(-1)?.body).toMatchObject({ previous_response_id: stored });
    expect(upstreams.primary.requests.length).toBe(0);
    await gateway.settled();
    const reservation = await db.selectFrom('quota_reservations').select(['amount']).executeTakeFirstOrThrow();
    // 50 000 tokens of context at $2 / 1M = $0.1 = 50 000 units, before the request's own prompt and output.
    expect(Number(reservation.amount)).toBeGreaterThanOrEqual(50_000);
  });
});

describe.skipIf(serverUrls.redis === undefined)('stored responses across replicas (REDIS_URL)', () => {
  let fixture: BillingFixture;
  let second: TestGateway;
  beforeAll(async () => {
    const redisUrl = serverUrls.redis!;
    fixture = await startBillingFixture({ fallbacks: true, env: { REDIS_URL: redisUrl } });
    storeOn(fixture);
    second = await startTestGateway({ databaseUrl: fixture.gateway.databaseUrl, env: { REDIS_URL: redisUrl }, config: { channels: [] } as never });
  });
  afterAll(async () => {
    await second?.close();
    await fixture?.close();
  });

  it('a response stored through one replica is continued through another on the same channel', async () => {
    failPrimaryOnce(fixture);
    const first = await fixture.sdk.openai.responses.create({ model, input: 'on replica A' });
    expect(first.id).toMatch(/^resp_fallback_/);
    await fixture.settled();
    const primaryBefore = requestsTo(fixture.primary['openai-responses']);
    const { default: OpenAI } = await import('openai');
    const onB = new OpenAI({ apiKey: fixture.sdk.openai.apiKey, baseURL: `${second.url}/v1`, maxRetries: 0 });
    const next = await onB.responses.create({ model, input: 'on replica B', previous_response_id: first.id });
    expect(next.id).toMatch(/^resp_fallback_/);
    expect(requestsTo(fixture.primary['openai-responses'])).toBe(primaryBefore);
  });
});
