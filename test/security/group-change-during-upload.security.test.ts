/**
 * A user moved to another group through the admin API while its request body uploads. The caller is read
 * again once the body has arrived (src/http/refresh-caller.ts, each keyed body route's first statement), before any step that reads its
 * group: the steps that shape the request before the relay envelope — the Gemini web-search reservation and
 * the Chat-only channel filter — see the new group, as the envelope's price and routing do. They read the
 * caller authenticated before the body: a user moved from a group whose Gemini channel sends the 2.5
 * model as itself (one search reserved) to one whose channel maps it to Gemini 3 (five) was reserved one
 * search and served on a key that covers one but not five; moved the other way, refused 402 on a key that
 * covers its one search; an `n` = 2 Chat request of a user moved into a group with a Chat channel was
 * refused 400 because the old group had none. Each outcome is compared with what the official SDK gets for
 * the same request sent whole afterwards. Every database (the reservation is the ledger's).
 */
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigChannel } from '../../src/config/config-file-schema.js';
import type { DialectName } from '../../src/storage/database-schema.js';
import { startScriptedUpstream, type ReplyScript, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { replyAsAsked } from '../fakes/scripted-vendor-wire.js';
import { waitFor } from '../routing/routing-fixture.js';
import { slowPost } from '../support/slow-post.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { allDialects } from '../support/test-databases.js';

const callerKey = `sk-${'g'.repeat(48)}`;
/** $3 / $15 per 1M tokens, $0.014 a search; at 500,000 quota per unit a search is 7,000. */
const geminiPrice = { input: 3, output: 15, web_search: 0.014 };
const perSearch = 7_000;

let gateway: TestGateway | undefined;
let upstreams: ScriptedUpstream[] = [];
afterEach(async () => {
  await gateway?.close();
  for (const upstream of upstreams) await upstream.close();
  gateway = undefined;
  upstreams = [];
});

const geminiAnswer = (modelVersion: string): ReplyScript => ({
  crlf: true,
  sse: [{ data: { candidates: [{ content: { role: 'model', parts: [{ text: 'Sunny.' }] }, finishReason: 'STOP', index: 0 }], modelVersion, usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 } } }],
});

const base = { key: 'up-key', priority: 0, weight: 1, enabled: true, auto_disable: false, settings: {} };

interface Started {
  gateway: TestGateway;
  defaultUpstream: ScriptedUpstream;
  vipUpstream: ScriptedUpstream;
  aliceId: number;
}

/**
 * Two groups at ratio 1, one channel each (built by `channels` from the two upstreams' urls), and alice in
 * `group` with a key holding `quota`.
 */
async function start(dialect: DialectName, group: string, quota: number, replies: [ReplyScript, ReplyScript], channels: (defaultUrl: string, vipUrl: string) => ConfigChannel[], prices: Record<string, unknown>): Promise<Started> {
  const defaultUpstream = await startScriptedUpstream({ fallback: replies[0] });
  const vipUpstream = await startScriptedUpstream({ fallback: replies[1] });
  upstreams = [defaultUpstream, vipUpstream];
  gateway = await startTestGateway({
    dialect,
    config: {
      prices,
      groups: { default: 1, vip: 1 },
      channels: channels(defaultUpstream.url, vipUpstream.url),
      users: [{ username: 'alice', role: 'user', group, quota: 1_000_000_000, enabled: true }],
      tokens: [{ name: 'alice-key', user: 'alice', key: callerKey, quota, expires_at: 0, enabled: true }],
    } as never,
  });
  const aliceId = [...gateway.gateway.services.catalog.snapshot.usersById.values()].find((user) => user.username === 'alice')!.id;
  return { gateway, defaultUpstream, vipUpstream, aliceId };
}

/** Moves alice through the admin API, and waits for the catalog to hold it before the rest of the body goes. */
async function moveTo(started: Started, group: string): Promise<void> {
  const answer = await fetch(`${started.gateway.url}/api/admin/users/${started.aliceId}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${started.gateway.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ group }),
  });
  expect(answer.status).toBeLessThan(300);
  expect(await waitFor(() => started.gateway.gateway.services.catalog.snapshot.usersById.get(started.aliceId)?.group === group)).toBe(true);
}

/** Each group's Gemini channel: default sends `gemini-2.5-flash` as itself, vip maps it to a Gemini 3 model. */
const geminiChannels = (defaultUrl: string, vipUrl: string): ConfigChannel[] =>
  [
    { ...base, name: 'gemini-default', type: 'gemini', base_url: defaultUrl, models: ['gemini-2.5-flash'], groups: ['default'], model_mapping: {} },
    { ...base, name: 'gemini-vip', type: 'gemini', base_url: vipUrl, models: ['gemini-2.5-flash'], groups: ['vip'], model_mapping: { 'gemini-2.5-flash': 'gemini-3-pro-preview' } },
  ] as ConfigChannel[];

const groundedBody = { contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }], tools: [{ googleSearch: {} }], generationConfig: { maxOutputTokens: 16 } };

const slowGrounded = (started: Started, between: () => Promise<void>) =>
  slowPost(`${started.gateway.url}/v1beta/models/gemini-2.5-flash:generateContent`, { 'x-goog-api-key': callerKey }, groundedBody, between);

/** What @google/genai gets for the same grounded request sent whole now: 200, or the error's status. */
const groundedNow = (started: Started) =>
  new GoogleGenAI({ apiKey: callerKey, httpOptions: { baseUrl: started.gateway.url } }).models
    .generateContent({ model: 'gemini-2.5-flash', contents: 'Weather in Paris?', config: { maxOutputTokens: 16, tools: [{ googleSearch: {} }] } })
    .then(
      () => 200,
      (error: { status?: number }) => error.status,
    );

/** The ledger's reservations, oldest first: what each request reserved, and whether it was settled. */
const reservations = async (started: Started) => {
  await started.gateway.settled();
  const rows = await started.gateway.gateway.services.database.db.selectFrom('quota_reservations').select(['amount', 'state']).orderBy('created_at').execute();
  return rows.map((row) => ({ amount: Number(row.amount), state: row.state }));
};

/** Each group's OpenAI channels: default only a Responses upstream; vip a Responses one first and a Chat one. */
const chatChannels = (defaultUrl: string, vipUrl: string): ConfigChannel[] =>
  [
    { ...base, name: 'responses-default', type: 'openai', base_url: defaultUrl, models: ['gpt-4o-mini'], groups: ['default'], model_mapping: {}, settings: { api: 'responses' } },
    { ...base, name: 'responses-vip', type: 'openai', base_url: defaultUrl, models: ['gpt-4o-mini'], groups: ['vip'], model_mapping: {}, priority: 10, settings: { api: 'responses' } },
    { ...base, name: 'chat-vip', type: 'openai', base_url: vipUrl, models: ['gpt-4o-mini'], groups: ['vip'], model_mapping: {} },
  ] as ConfigChannel[];

const twoChoices = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20, n: 2 };

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`a user moved to another group while its body uploads (${dialect})`, () => {
    it('moved to a group whose channel maps the grounded model to Gemini 3: five searches reserved, so a key covering one is refused 402 as the SDK is, before any upstream call', async () => {
      const started = await start(dialect, 'default', 2 * perSearch, [geminiAnswer('gemini-2.5-flash'), geminiAnswer('gemini-3-pro-preview')], geminiChannels, { 'gemini-2.5-flash': geminiPrice });
      const out = await slowGrounded(started, () => moveTo(started, 'vip'));
      const calls = started.defaultUpstream.requests.length + started.vipUpstream.requests.length;
      expect({ status: out.status, grpc: out.json.error?.status, calls, reservations: await reservations(started) }).toEqual({ status: 402, grpc: 'RESOURCE_EXHAUSTED', calls: 0, reservations: [] });
      expect(await groundedNow(started)).toBe(402);
    });

    it('moved to a group whose channel sends the model as itself: one search reserved, the same key is served by that group\'s channel, as the SDK is', async () => {
      const started = await start(dialect, 'vip', 2 * perSearch, [geminiAnswer('gemini-2.5-flash'), geminiAnswer('gemini-3-pro-preview')], geminiChannels, { 'gemini-2.5-flash': geminiPrice });
      const out = await slowGrounded(started, () => moveTo(started, 'default'));
      expect({ status: out.status, text: out.json.candidates?.[0]?.content?.parts?.[0]?.text, defaultChannel: started.defaultUpstream.requests.length, vipChannel: started.vipUpstream.requests.length }).toEqual({ status: 200, text: 'Sunny.', defaultChannel: 1, vipChannel: 0 });
      expect(await groundedNow(started)).toBe(200);
      // One search and the tokens, settled; the same as the request sent whole in that group.
      const [slow, whole] = await reservations(started);
      expect(slow!.amount).toBeGreaterThanOrEqual(perSearch);
      expect(slow!.amount).toBeLessThan(2 * perSearch);
      expect(slow).toEqual(whole);
    });

    it("an n = 2 Chat request moved into a group with a Chat channel: served there with two choices, as the openai SDK is (was refused 400 for the old group's lack of one)", async () => {
      const chat = replyAsAsked('openai-chat', { text: 'ok', usage: { input: 10, output: 5 } });
      const started = await start(dialect, 'default', 100_000_000, [replyAsAsked('openai-responses', { text: 'ok', usage: { input: 10, output: 5 } }), chat], chatChannels, { 'gpt-4o-mini': { input: 0.15, output: 0.6 } });
      const out = await slowPost(`${started.gateway.url}/v1/chat/completions`, { authorization: `Bearer ${callerKey}` }, twoChoices, () => moveTo(started, 'vip'));
      expect({ status: out.status, error: out.json.error?.message, responsesChannels: started.defaultUpstream.requests.length, chatChannel: started.vipUpstream.requests.length }).toEqual({ status: 200, error: undefined, responsesChannels: 0, chatChannel: 1 });
      const client = new OpenAI({ apiKey: callerKey, baseURL: `${started.gateway.url}/v1`, maxRetries: 0 });
      await client.chat.completions.create({ ...twoChoices, messages: [{ role: 'user', content: 'hi' }] } as never);
      expect({ responsesChannels: started.defaultUpstream.requests.length, chatChannel: started.vipUpstream.requests.length }).toEqual({ responsesChannels: 0, chatChannel: 2 });
    });
  });
}
