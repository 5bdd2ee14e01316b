/**
 * A stored response lives on the account of the KEY that made it. A channel may hold several keys
 * (`keys: [...]`, rotated, README "several keys, rotated"), each possibly another account (OpenAI stores a
 * response per account and project). From the Responses audit: the memory recorded only the channel, so the
 * continuation went out with the channel's next key, which answered `previous_response_not_found`. Now the
 * key's fingerprint is remembered with the response (and its conversation) and the continuation uses that
 * key while it is usable; rotation goes on for everything else. Through the openai SDK.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedRequest, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { responsesStream, responsesWhole } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { serverUrls } from '../support/test-databases.js';

const callerKey = `sk-${'r'.repeat(48)}`;
/** Response ids unique to this run: replicas share a Redis that other runs wrote to. */
const run = randomUUID().slice(0, 8);

/**
 * As OpenAI: each key's account stores its own responses (and conversations); another account does not know
 * them. `sk-account-a` is refused (401) for a request whose input says `reject a`.
 */
function perAccountStore() {
  const stored = new Map<string, string>();
  let made = 0;
  return (request: ScriptedRequest) => {
    const key = String(request.headers.authorization);
    const body = request.body as Record<string, unknown>;
    if (key === 'Bearer sk-account-a' && String(JSON.stringify(body.input)).includes('reject a')) {
      return { status: 401, json: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } };
    }
    const previous = body.previous_response_id;
    if (typeof previous === 'string' && stored.get(previous) !== key) {
      return { status: 400, json: { error: { message: `Previous response with id '${previous}' not found.`, type: 'invalid_request_error', param: 'previous_response_id', code: 'previous_response_not_found' } } };
    }
    const conversation = typeof body.conversation === 'string' ? body.conversation : undefined;
    if (conversation !== undefined && stored.has(conversation) && stored.get(conversation) !== key) {
      return { status: 404, json: { error: { message: `Conversation with id '${conversation}' not found.`, type: 'invalid_request_error', param: 'conversation', code: null } } };
    }
    if (conversation !== undefined) stored.set(conversation, key);
    made += 1;
    const id = `resp_${run}_${made}`;
    stored.set(id, key);
    const reply = { id, text: `answer ${made}`, usage: { input: 10, output: 2 } };
    return body.stream === true ? responsesStream(reply) : responsesWhole(reply);
  };
}

const pooledChannel = (url: string) => ({
  name: 'pooled',
  type: 'openai',
  base_url: url,
  keys: ['sk-account-a', 'sk-account-b'],
  models: ['gpt-5', 'gpt-5-openai-compact'],
  groups: ['default'],
  priority: 0,
  weight: 1,
  model_mapping: {},
  enabled: true,
  auto_disable: false,
  settings: { api: 'responses' },
});

const config = (url: string) =>
  ({
    retry_times: 2,
    // Its conversations are made outside the gateway (the scripted upstream has no Conversations API): claimed by their first turn.
    allow_unknown_conversations: true,
    prices: { 'gpt-5': { input: 2, output: 8 }, 'gpt-5-openai-compact': { input: 2, output: 8 } },
    channels: [pooledChannel(url)],
    users: [{ username: 'pooler', role: 'user', group: 'default', enabled: true }],
    tokens: [{ name: 'pooler-key', user: 'pooler', key: callerKey, quota: 100_000_000, expires_at: 0, enabled: true }],
  }) as never;

const keysSince = (upstream: ScriptedUpstream, from: number) => upstream.requests.slice(from).map((request) => String(request.headers.authorization).replace('Bearer ', ''));

describe('a continuation on a channel of several keys', () => {
  let upstream: ScriptedUpstream;
  let gateway: TestGateway;
  let openai: OpenAI;
  beforeEach(async () => {
    upstream = await startScriptedUpstream({ fallback: perAccountStore() });
    gateway = await startTestGateway({ config: config(upstream.url) });
    openai = new OpenAI({ apiKey: callerKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterEach(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('a previous_response_id continuation goes out with the key whose account stored the response, turn after turn', async () => {
    const first = await openai.responses.create({ model: 'gpt-5', input: 'first turn', max_output_tokens: 50 });
    const second = await openai.responses.create({ model: 'gpt-5', input: 'second turn', previous_response_id: first.id, max_output_tokens: 50 });
    expect(second.output_text).toBe('answer 2');
    // Streamed, continuing the second.
    const third = await openai.responses.stream({ model: 'gpt-5', input: 'third turn', previous_response_id: second.id, max_output_tokens: 50 }).finalResponse();
    expect(third.output_text).toBe('answer 3');
    // A request that continues nothing still rotates.
    await openai.responses.create({ model: 'gpt-5', input: 'unrelated', max_output_tokens: 50 });
    expect(keysSince(upstream, 0)).toEqual(['sk-account-a', 'sk-account-a', 'sk-account-a', 'sk-account-b']);
  });

  it('a conversation continued goes out with the key that served its last turn', async () => {
    const conversation = `conv_${run}`;
    await openai.responses.create({ model: 'gpt-5', input: 'unrelated', max_output_tokens: 50 });
    // The conversation starts on the next key in turn: b.
    await openai.responses.create({ model: 'gpt-5', input: 'turn one', conversation, max_output_tokens: 50 });
    const two = await openai.responses.create({ model: 'gpt-5', input: 'turn two', conversation, max_output_tokens: 50 });
    expect(two.output_text).toBe('answer 3');
    expect(keysSince(upstream, 1)).toEqual(['sk-account-b', 'sk-account-b']);
  });

  it('a compaction of a stored response goes out with the key that stored it', async () => {
    const first = await openai.responses.create({ model: 'gpt-5', input: 'first turn', max_output_tokens: 50 });
    const before = upstream.requests.length;
    const compacted = await fetch(`${gateway.url}/v1/responses/compact`, {
      method: 'POST',
      headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-5', previous_response_id: first.id }),
    });
    expect(compacted.status).toBe(200);
    expect(keysSince(upstream, before)).toEqual(['sk-account-a']);
  });

  it('the remembered key once set aside (rejected): the continuation falls back to the next key, as before', async () => {
    const first = await openai.responses.create({ model: 'gpt-5', input: 'first turn', max_output_tokens: 50 });
    // b serves one; then a is rejected (401) and set aside, and b serves the retry.
    await openai.responses.create({ model: 'gpt-5', input: 'one', max_output_tokens: 50 });
    const retried = await openai.responses.create({ model: 'gpt-5', input: 'reject a', max_output_tokens: 50 });
    expect(retried.output_text).toMatch(/^answer/);
    const before = upstream.requests.length;
    const error = await openai.responses.create({ model: 'gpt-5', input: 'next', previous_response_id: first.id, max_output_tokens: 50 }).catch((caught: unknown) => caught);
    expect(keysSince(upstream, before), 'the set-aside key is not used').toEqual(['sk-account-b']);
    // b's account does not hold it: its answer comes back, as for any unknown id.
    expect((error as { status?: number }).status).toBe(400);
  });

  it('the remembered key removed by an operator: the continuation goes out with a key the channel still has', async () => {
    const first = await openai.responses.create({ model: 'gpt-5', input: 'first turn', max_output_tokens: 50 });
    const { db } = gateway.gateway.services.database;
    const channel = await db.selectFrom('channels').select('id').where('name', '=', 'pooled').executeTakeFirstOrThrow();
    const edited = await fetch(`${gateway.url}/api/admin/channels/${channel.id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${gateway.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ keys: ['sk-account-c'] }),
    });
    expect(edited.status).toBe(200);
    const before = upstream.requests.length;
    await openai.responses.create({ model: 'gpt-5', input: 'next', previous_response_id: first.id, max_output_tokens: 50 }).catch(() => undefined);
    expect(keysSince(upstream, before)).toEqual(['sk-account-c']);
  });
});

describe.skipIf(serverUrls.redis === undefined)('a continuation on another replica (REDIS_URL)', () => {
  let upstream: ScriptedUpstream;
  let replicaA: TestGateway;
  let replicaB: TestGateway;
  beforeAll(async () => {
    upstream = await startScriptedUpstream({ fallback: perAccountStore() });
    replicaA = await startTestGateway({ config: config(upstream.url), env: { REDIS_URL: serverUrls.redis! } });
    replicaB = await startTestGateway({ databaseUrl: replicaA.databaseUrl, env: { REDIS_URL: serverUrls.redis! }, config: { channels: [] } as never });
  }, 30_000);
  afterAll(async () => {
    await replicaB?.close();
    await replicaA?.close();
    await upstream?.close();
  });

  it('replica B, whose own rotation is at the other key, continues with the key replica A stored the response with', async () => {
    const onA = new OpenAI({ apiKey: callerKey, baseURL: `${replicaA.url}/v1`, maxRetries: 0 });
    const onB = new OpenAI({ apiKey: callerKey, baseURL: `${replicaB.url}/v1`, maxRetries: 0 });
    // B's rotation moves on to b; A's first answer is made with a.
    await onB.responses.create({ model: 'gpt-5', input: 'warm B', max_output_tokens: 50 });
    const first = await onA.responses.create({ model: 'gpt-5', input: 'first turn on A', max_output_tokens: 50 });
    // The Redis write is off the request's path: wait until it is there.
    const redis = new Redis(serverUrls.redis!);
    try {
      await expect.poll(() => redis.exists(`relay:response:${first.id}`), { timeout: 10_000, interval: 50 }).toBe(1);
    } finally {
      redis.disconnect();
    }
    const before = upstream.requests.length;
    const next = await onB.responses.create({ model: 'gpt-5', input: 'next on B', previous_response_id: first.id, max_output_tokens: 50 });
    expect(keysSince(upstream, before)).toEqual(['sk-account-a']);
    expect(next.output_text).toMatch(/^answer/);
  });
});
