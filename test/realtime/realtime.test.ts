/**
 * Realtime (spec §4.5 `GET /v1/realtime`, protocols.md §9) through the real gateway: the openai SDK's
 * `OpenAIRealtimeWS` (behind a TLS front: the SDK always dials wss://) against two fake Realtime upstreams
 * (test/fakes/fake-realtime-upstream.ts). Charges are computed here from the token prices, as
 * docs/behaviour.md "Realtime" describes: each response at its reported usage, from a hold the session keeps.
 */
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { tokens } from '../billing-edges/billing-fixture.js';
import { startFakeRealtimeUpstream, type FakeRealtimeUpstream } from '../fakes/fake-realtime-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { preferredDialect } from '../videos/videos-fixture.js';
import { startTlsFront } from './tls-front.js';

const clientKey = `sk-${'s'.repeat(48)}`;
const smallKey = `sk-${'t'.repeat(48)}`;
const tightKey = `sk-${'u'.repeat(48)}`;
const quotaPerUnit = 500_000;
/** $ per million tokens. */
const price = { input: 4, output: 16, cache_read: 0.4 };
/** The same model priced for audio as OpenAI prices its realtime models: audio at 8× and 4× text. */
const audioPrice = { ...price, audio_input: 32, audio_output: 64 };
/** The hold a session keeps: 16,384 input tokens and the model's 4,096-token output budget at the price. */
const hold = (16_384 * price.input + 4_096 * price.output) * (quotaPerUnit / 1_000_000);
/** A response's charge in quota units, by hand from the price. */
const chargeOf = (usage: { input: number; cached?: number; output: number }) => ((usage.input - (usage.cached ?? 0)) * price.input + (usage.cached ?? 0) * price.cache_read + usage.output * price.output) * (quotaPerUnit / 1_000_000);

let upstream: FakeRealtimeUpstream;
let spare: FakeRealtimeUpstream;
let gateway: TestGateway;
let front: { url: string; close(): Promise<void> };

beforeAll(async () => {
  [upstream, spare] = await Promise.all([startFakeRealtimeUpstream({ expectedKeys: ['sk-up-realtime'] }), startFakeRealtimeUpstream({ expectedKeys: ['sk-up-spare'] })]);
  const channel = { type: 'openai' as const, groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime', 'realtime-alias', 'audio-realtime'] };
  gateway = await startTestGateway({
    dialect: preferredDialect(),
    config: {
      retry_times: 1,
      prices: { 'gpt-realtime': price, 'realtime-alias': price, 'audio-realtime': audioPrice },
      channels: [
        { ...channel, name: 'rt-up', base_url: upstream.url, key: 'sk-up-realtime', priority: 10, model_mapping: { 'realtime-alias': 'gpt-realtime-2025' } },
        { ...channel, name: 'rt-spare', base_url: spare.url, key: 'sk-up-spare', priority: 0, model_mapping: {} },
      ],
      users: [{ username: 'speaker', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [
        { name: 'speaker-key', user: 'speaker', key: clientKey, quota: 1_000_000_000_000, expires_at: 0, enabled: true },
        { name: 'small-key', user: 'speaker', key: smallKey, quota: 1, expires_at: 0, enabled: true },
        // Covers one hold and one default response, one unit short of the next hold.
        { name: 'tight-key', user: 'speaker', key: tightKey, quota: hold + chargeOf({ input: 120, cached: 20, output: 30 }) - 1, expires_at: 0, enabled: true },
      ],
    },
  });
  front = await startTlsFront(gateway.url);
});
afterAll(async () => {
  await front.close();
  await gateway.close();
  await Promise.all([upstream.close(), spare.close()]);
});

const db = () => gateway.gateway.services.database.db;
async function used(name = 'speaker-key'): Promise<number> {
  await gateway.settled();
  const row = await db().selectFrom('tokens').select('used_quota').where('name', '=', name).executeTakeFirstOrThrow();
  return Number(row.used_quota);
}
async function openReservations(): Promise<number> {
  return (await db().selectFrom('quota_reservations').select('id').where('state', '=', 'reserved').execute()).length;
}
async function realtimeLogs(since: number) {
  await gateway.settled();
  return db().selectFrom('logs').selectAll().where('style', '=', 'openai-realtime').where('created_at', '>=', since).orderBy('id').execute();
}

/** An SDK session through the gateway, open and past `session.created`; events collected by type. */
async function openSession(model = 'gpt-realtime', key = clientKey) {
  const client = new OpenAI({ apiKey: key, baseURL: `${front.url}/v1` });
  const rt = new OpenAIRealtimeWS({ model, options: { rejectUnauthorized: false } }, client);
  const events: Array<{ type: string } & Record<string, unknown>> = [];
  const errors: Error[] = [];
  rt.on('event', (event) => events.push(event as never));
  rt.on('error', (error) => errors.push(error));
  const closed = new Promise<number>((resolve) => rt.socket.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    rt.on('session.created', () => resolve());
    rt.socket.once('error', reject);
  });
  const waitFor = async (type: string, count = 1) => {
    await expect.poll(() => events.filter((event) => event.type === type).length, { timeout: 5_000 }).toBeGreaterThanOrEqual(count);
  };
  return { rt, events, errors, closed, waitFor };
}

/** The upgrade answer a raw client gets when the gateway refuses it. */
function refusedUpgrade(path: string, headers: Record<string, string>, protocols?: string[], on: TestGateway = gateway): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${on.url.replace('http', 'ws')}${path}`, protocols, { headers });
    socket.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.on('open', () => reject(new Error('the upgrade was accepted')));
    socket.on('error', () => undefined);
  });
}

describe('Realtime sessions', () => {
  it("bills a response's audio tokens at the audio prices, its text at the text prices, and logs the audio counts", async () => {
    const since = Date.now();
    const before = await used();
    const session = await openSession('audio-realtime');
    upstream.setNextUsage({ input_tokens: 2000, cached_tokens: 500, cached_audio_tokens: 300, audio_input_tokens: 1500, output_tokens: 400, audio_output_tokens: 350 });
    session.rt.send({ type: 'response.create' });
    await session.waitFor('response.done');
    session.rt.close();
    await session.closed;
    // Uncached input 1,500: 1,200 audio (1,500 − 300 cached) and 300 text; 500 cached; output 350 audio and 50 text.
    const charge = (300 * audioPrice.input + 1200 * audioPrice.audio_input + 500 * audioPrice.cache_read + 50 * audioPrice.output + 350 * audioPrice.audio_output) * (quotaPerUnit / 1_000_000);
    expect(charge).toBe(31_500);
    expect((await used()) - before).toBe(charge);
    const rows = await realtimeLogs(since);
    expect(rows.map((row) => ({ model: row.model, quota: Number(row.quota), audioIn: Number(row.audio_input_tokens), audioOut: Number(row.audio_output_tokens) }))).toEqual([
      { model: 'audio-realtime', quota: charge, audioIn: 1200, audioOut: 350 },
    ]);
  });

  it('relays a text response both ways and bills it at the usage response.done reports', async () => {
    const since = Date.now();
    const before = await used();
    const session = await openSession();
    session.rt.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hello' }] } });
    session.rt.send({ type: 'response.create' });
    await session.waitFor('response.done');
    expect(session.events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta)).toEqual(['Hel', 'lo', '!']);
    expect(session.events.map((event) => event.type)).toContain('conversation.item.added');
    const connection = upstream.connections.at(-1);
    expect(connection?.headers.authorization).toBe('Bearer sk-up-realtime');
    expect(connection?.path).toBe('/v1/realtime?model=gpt-realtime');
    expect(connection?.received.map((event) => event.type)).toEqual(['conversation.item.create', 'response.create']);
    expect((await used()) - before).toBe(chargeOf({ input: 120, cached: 20, output: 30 }));
    session.rt.close();
    expect(await session.closed).toBe(1000);
    const logs = await realtimeLogs(since);
    expect(logs.map((row) => [Number(row.input_tokens), Number(row.cache_read_tokens), Number(row.output_tokens), Number(row.quota), row.usage_source, row.status])).toEqual([[120, 20, 30, chargeOf({ input: 120, cached: 20, output: 30 }), 'upstream', 200]]);
    expect((await used()) - before).toBe(chargeOf({ input: 120, cached: 20, output: 30 }));
    await expect.poll(() => openReservations()).toBe(0);
    expect(session.errors).toEqual([]);
  });

  it('bills each response of a session apart, and maps the model', async () => {
    const since = Date.now();
    const before = await used();
    const session = await openSession('realtime-alias');
    expect(upstream.connections.at(-1)?.path).toBe('/v1/realtime?model=gpt-realtime-2025');
    upstream.setNextUsage({ input_tokens: 300, output_tokens: 80 });
    session.rt.send({ type: 'response.create' });
    await session.waitFor('response.done');
    session.rt.send({ type: 'response.create' });
    await session.waitFor('response.done', 2);
    session.rt.close();
    await session.closed;
    const expected = chargeOf({ input: 300, output: 80 }) + chargeOf({ input: 120, cached: 20, output: 30 });
    await expect.poll(() => used()).toBe(before + expected);
    const logs = await realtimeLogs(since);
    expect(logs.map((row) => [row.model, row.upstream_model, Number(row.quota)])).toEqual([
      ['realtime-alias', 'gpt-realtime-2025', chargeOf({ input: 300, output: 80 })],
      ['realtime-alias', 'gpt-realtime-2025', chargeOf({ input: 120, cached: 20, output: 30 })],
    ]);
    await expect.poll(() => openReservations()).toBe(0);
  });

  it('cancels the response a leaving client cut, and bills the usage the upstream reports for it', async () => {
    const since = Date.now();
    const before = await used();
    upstream.holdResponses(true);
    try {
      const session = await openSession();
      session.rt.send({ type: 'response.create' });
      await session.waitFor('response.output_text.delta', 3);
      session.rt.close();
      await session.closed;
      await expect.poll(async () => (await realtimeLogs(since)).length).toBe(1);
      expect(upstream.connections.at(-1)?.received.map((event) => event.type)).toEqual(['response.create', 'response.cancel']);
      expect((await used()) - before).toBe(chargeOf({ input: 50, output: 5 }));
      await expect.poll(() => openReservations()).toBe(0);
    } finally {
      upstream.holdResponses(false);
    }
  });

  it('bills a response cut by the upstream at the text it produced, and closes the client with 1011', async () => {
    const since = Date.now();
    const before = await used();
    upstream.holdResponses(true);
    upstream.setDeltas(['Hello there, ', 'how are you today?']);
    try {
      const session = await openSession();
      session.rt.send({ type: 'response.create' });
      await session.waitFor('response.output_text.delta', 2);
      upstream.dropAll();
      expect(await session.closed).toBe(1011);
      await expect.poll(async () => (await realtimeLogs(since)).length).toBe(1);
      const [row] = await realtimeLogs(since);
      expect(row?.usage_source).toBe('local');
      expect(row?.status).toBe(499);
      // The text the cut response produced, counted once (o200k).
      const output = Number(row?.output_tokens);
      expect(output).toBe(tokens('Hello there, how are you today?'));
      expect(Number(row?.quota)).toBe(chargeOf({ input: 0, output }));
      expect((await used()) - before).toBe(chargeOf({ input: 0, output }));
      await expect.poll(() => openReservations()).toBe(0);
    } finally {
      upstream.holdResponses(false);
      upstream.setDeltas(['Hel', 'lo', '!']);
    }
  });

  it('keeps one hold of a response’s worth while a session is open', async () => {
    const session = await openSession();
    await expect.poll(async () => (await db().selectFrom('quota_reservations').select('amount').where('state', '=', 'reserved').execute()).map((row) => Number(row.amount))).toEqual([hold]);
    session.rt.send({ type: 'response.create' });
    await session.waitFor('response.done');
    await expect.poll(async () => (await db().selectFrom('quota_reservations').select('amount').where('state', '=', 'reserved').execute()).map((row) => Number(row.amount))).toEqual([hold]);
    session.rt.close();
    await session.closed;
    await expect.poll(() => openReservations()).toBe(0);
  });

  it('ends the session with an insufficient_quota event when the next response cannot be held, having charged exactly what was used', async () => {
    const session = await openSession('gpt-realtime', tightKey);
    session.rt.send({ type: 'response.create' });
    await session.waitFor('response.done');
    expect(await session.closed).toBe(1008);
    const error = session.events.find((event) => event.type === 'error') as { error?: { code?: string } } | undefined;
    expect(error?.error?.code).toBe('insufficient_quota');
    expect(session.errors.map((failure) => failure.message).join()).toMatch(/Insufficient quota/);
    await expect.poll(() => openReservations()).toBe(0);
    expect(await used('tight-key')).toBe(chargeOf({ input: 120, cached: 20, output: 30 }));
    await expect.poll(() => upstream.connections.at(-1)?.closed).toBe(true);
  });

  it('fails over an upstream that refuses the session', async () => {
    upstream.refuseNextUpgrade(503);
    const session = await openSession();
    expect(spare.connections.at(-1)?.headers.authorization).toBe('Bearer sk-up-spare');
    session.rt.send({ type: 'response.create' });
    await session.waitFor('response.done');
    session.rt.close();
    await session.closed;
    // The gateway ends its side when it sees the close: the hold is settled then.
    await expect.poll(() => openReservations()).toBe(0);
  });

  // From the side audit: a 3xx upgrade answer (a base_url moved to https) used to be held as the client's fault (not retried).
  it('fails over an upstream that answers the upgrade with a redirect', async () => {
    upstream.refuseNextUpgrade(301);
    const session = await openSession();
    expect(spare.connections.at(-1)?.headers.authorization).toBe('Bearer sk-up-spare');
    session.rt.close();
    await session.closed;
    await expect.poll(() => openReservations()).toBe(0);
  });

  it('authenticates a browser client by subprotocol and sends the channel key the same way', async () => {
    const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, ['realtime', `openai-insecure-api-key.${clientKey}`, 'openai-beta.realtime-v1']);
    const created = await new Promise<{ type: string }>((resolve, reject) => {
      socket.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8')) as { type: string }));
      socket.once('error', reject);
    });
    expect(created.type).toBe('session.created');
    expect(socket.protocol).toBe('realtime');
    const connection = upstream.connections.at(-1);
    expect(connection?.protocols).toEqual(['realtime', 'openai-insecure-api-key.sk-up-realtime', 'openai-beta.realtime-v1']);
    expect(connection?.headers.authorization).toBeUndefined();
    socket.close();
    await new Promise((resolve) => socket.once('close', resolve));
  });

  it('sends the client’s OpenAI-Beta header upstream as it came', async () => {
    const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${clientKey}`, 'openai-beta': 'realtime=v1' } });
    await new Promise<void>((resolve, reject) => {
      socket.once('message', () => resolve());
      socket.once('error', reject);
    });
    expect(upstream.connections.at(-1)?.headers['openai-beta']).toBe('realtime=v1');
    socket.close();
    await new Promise((resolve) => socket.once('close', resolve));
  });

  it('refuses bad keys, missing or unknown models and short quota before the upgrade, charging nothing', async () => {
    const before = await used();
    const cases: [string, Record<string, string>, number, string][] = [
      ['/v1/realtime?model=gpt-realtime', {}, 401, 'invalid_api_key'],
      ['/v1/realtime?model=gpt-realtime', { authorization: `Bearer sk-${'x'.repeat(48)}` }, 401, 'invalid_api_key'],
      ['/v1/realtime', { authorization: `Bearer ${clientKey}` }, 400, 'invalid_request'],
      ['/v1/realtime?model=no-such-model', { authorization: `Bearer ${clientKey}` }, 400, 'model_not_found'],
      ['/v1/realtime?model=gpt-realtime', { authorization: `Bearer ${smallKey}` }, 402, 'insufficient_quota'],
      ['/v1/elsewhere', { authorization: `Bearer ${clientKey}` }, 404, 'not_found'],
    ];
    for (const [path, headers, status, code] of cases) {
      const refused = await refusedUpgrade(path, headers);
      expect(refused.status, path).toBe(status);
      expect((JSON.parse(refused.body) as { error: { code: string } }).error.code, path).toBe(code);
    }
    const plain = await fetch(`${gateway.url}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${clientKey}` } });
    expect(plain.status).toBe(426);
    expect(await used()).toBe(before);
    expect(await used('small-key')).toBe(0);
    await expect.poll(() => openReservations()).toBe(0);
  });

  // Last: both channels then cool down.
  it('answers every channel out of credit with a 502 server_error, not the client\'s own 402 insufficient_quota', async () => {
    const before = await used();
    const noCredit = { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } };
    upstream.refuseNextUpgrade(429, noCredit);
    spare.refuseNextUpgrade(429, noCredit);
    const refused = await refusedUpgrade('/v1/realtime?model=gpt-realtime', { authorization: `Bearer ${clientKey}` });
    expect(refused.status).toBe(502);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { type: 'server_error', code: 'upstream_out_of_credit', message: expect.stringContaining("channel is out of credit") } });
    expect(await used()).toBe(before);
  });
});

// From the realtime gaps review: the upgrade answered an upstream's refusal of the channel's key with the
// upstream's message (key masked), where the text routes answer their own words and keep it in the log; and a
// refused upgrade wrote no log row at all.
describe("Realtime, an upstream refusing the channel's key", () => {
  it("is a 502 in the gateway's words, the upstream's message (the key masked) in the log row only", async () => {
    const own = await startTestGateway({
      dialect: 'sqlite',
      config: {
        prices: { 'gpt-realtime': price },
        channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstream.url, key: 'sk-up-realtime', priority: 0, model_mapping: {} }],
        users: [{ username: 'refused', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
        tokens: [{ name: 'refused-key', user: 'refused', key: clientKey, quota: 1_000_000_000, expires_at: 0, enabled: true }],
      },
    });
    try {
      upstream.refuseNextUpgrade(401, { error: { message: 'Incorrect API key provided: sk-up-realtime. Organization org-rt-secret.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
      const refused = await refusedUpgrade('/v1/realtime?model=gpt-realtime', { authorization: `Bearer ${clientKey}` }, undefined, own);
      expect(refused.status).toBe(502);
      const { error } = JSON.parse(refused.body) as { error: { type: string; code: string; message: string } };
      expect({ type: error.type, code: error.code }).toEqual({ type: 'server_error', code: 'upstream_credentials_refused' });
      expect(error.message).toContain("The upstream refused the credentials of the gateway's channel (HTTP 401)");
      expect(error.message).not.toContain('org-rt-secret');
      await own.settled();
      const rows = await own.gateway.services.database.db.selectFrom('logs').select(['status', 'quota', 'error', 'attempts']).where('style', '=', 'openai-realtime').execute();
      expect(rows.map((row) => [Number(row.status), Number(row.quota)])).toEqual([[502, 0]]);
      expect(rows[0]?.error).toContain('The upstream said: Incorrect API key provided: ***. Organization org-rt-secret.');
      expect(rows[0]?.attempts).toContain('org-rt-secret');
      expect(`${rows[0]?.error}${rows[0]?.attempts}`).not.toContain('sk-up-realtime');
      expect((await own.gateway.services.database.db.selectFrom('quota_reservations').select('id').where('state', '=', 'reserved').execute()).length).toBe(0);
    } finally {
      await own.close();
    }
  });
});

describe('Realtime at shutdown', () => {
  it('closes open sessions with 1001 and settles their holds before the gateway stops', async () => {
    const own = await startTestGateway({
      dialect: 'sqlite',
      config: {
        prices: { 'gpt-realtime': price },
        channels: [{ type: 'openai', groups: ['default'], weight: 1, enabled: true, auto_disable: false, settings: {}, models: ['gpt-realtime'], name: 'rt', base_url: upstream.url, key: 'sk-up-realtime', priority: 0, model_mapping: {} }],
        users: [{ username: 'late', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
        tokens: [{ name: 'late-key', user: 'late', key: clientKey, quota: 1_000_000_000, expires_at: 0, enabled: true }],
      },
    });
    const socket = new WebSocket(`${own.url.replace('http', 'ws')}/v1/realtime?model=gpt-realtime`, { headers: { authorization: `Bearer ${clientKey}` } });
    await new Promise<void>((resolve, reject) => {
      socket.once('message', () => resolve());
      socket.once('error', reject);
    });
    const database = own.gateway.services.database.db;
    expect((await database.selectFrom('quota_reservations').select('id').where('state', '=', 'reserved').execute()).length).toBe(1);
    const [open] = await database.selectFrom('quota_reservations').select('id').where('state', '=', 'reserved').execute();
    const closed = new Promise<number>((resolve) => socket.once('close', resolve));
    const settle = vi.spyOn(own.gateway.services.relay.ledger, 'settle');
    await own.close();
    expect(await closed).toBe(1001);
    // Settled (at nothing: no response was under way) while the database was still open.
    expect(settle.mock.calls.map(([id, input]) => [id, input.actualAmount])).toEqual([[open?.id, 0]]);
    await expect(settle.mock.results[0]?.value).resolves.toMatchObject({ applied: true });
  });
});
