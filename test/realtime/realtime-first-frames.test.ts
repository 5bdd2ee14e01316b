/**
 * A Realtime session's first client frames when they are bad (probe session 37), through the openai SDK's
 * `OpenAIRealtimeWS` (its `socket` sends the raw frames the SDK would not): text that is not JSON, a binary
 * frame, JSON that is not an object, an unknown event type — relayed, and answered by the upstream's `error`
 * event as OpenAI answers them, the session kept open; a `session.update` whose model fields are not strings
 * or whose frame names a key twice — answered by the gateway's own `error` event (`invalid_type`,
 * `duplicate_key`) and never sent upstream (a repeated `model` was checked as its last value and relayed
 * with both, for an upstream that keeps the first to run a model the session was not admitted for); a
 * frame over the size limit — 1009. Nothing is charged, no hold stays open. And the `error` event that ends
 * a session (its key withdrawn) has an id of its own in each session. A raw client that pipelines refused
 * updates with its upgrade request (before it read anything) still gets the upstream's `session.created`
 * first, the gateway's `error` events after it, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { TestGateway } from '../support/start-test-gateway.js';
import { callAdmin } from '../admin/admin-client.js';
import { openPipelinedSession } from './pipelined-realtime-socket.js';
import { openSdkSession, startRealtimeSdkGateway, type RealtimeEvent, type RealtimeSdkGateway } from './realtime-sdk-gateway.js';

const key = `sk-${'f'.repeat(48)}`;
const endKeys = [`sk-${'x'.repeat(48)}`, `sk-${'y'.repeat(48)}`];
let stack: RealtimeSdkGateway;
let gateway: TestGateway;

beforeAll(async () => {
  const token = { quota: 1_000_000_000, unlimited_quota: false, expires_at: 0, enabled: true, user: 'u' } as const;
  const limited = { model_limits: ['gpt-realtime'] };
  stack = await startRealtimeSdkGateway({
    channelKey: 'sk-up-first-frames-0123456789',
    models: ['gpt-realtime', 'gpt-realtime-pro'],
    config: {
      prices: { 'gpt-realtime': { input: 4, output: 16 }, 'gpt-realtime-pro': { input: 40, output: 160 }, 'gpt-4o-transcribe': { input: 2.5, output: 10 } },
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ ...token, ...limited, name: 'first', key }, { ...token, ...limited, name: 'end-1', key: endKeys[0]! }, { ...token, ...limited, name: 'end-2', key: endKeys[1]! }],
    },
  });
  gateway = stack.gateway;
}, 30_000);
afterAll(() => stack.close(), 30_000);

/** Balances and open holds once every session closed so far has settled its hold (a session settles after its upstream closes). */
async function spent() {
  const { db } = gateway.gateway.services.database;
  await expect.poll(async () => (await db.selectFrom('quota_reservations').select('id').where('state', '=', 'reserved').execute()).length, { timeout: 5_000 }).toBe(0);
  await gateway.settled();
  const tokens = await db.selectFrom('tokens').select(['name', 'used_quota', 'remain_quota']).orderBy('name').execute();
  const users = await db.selectFrom('users').select(['username', 'used_quota', 'quota']).orderBy('username').execute();
  const open = await db.selectFrom('quota_reservations').select('id').where('state', '=', 'reserved').execute();
  return { tokens, users, open: open.length };
}

/** Opens a session, sends `frame` raw, waits for an answer (or the close), closes; what the client saw and the upstream got. */
async function sendFirst(frame: string | Buffer, wait: (events: RealtimeEvent[]) => boolean) {
  const { rt, events, closed } = await openSdkSession(stack.front, key);
  const connection = stack.upstream.connections.at(-1)!;
  let code: number | undefined;
  rt.socket.on('close', (closeCode: number) => (code = closeCode));
  let openAfter: boolean;
  try {
    rt.socket.send(frame);
    await expect.poll(() => wait(events) || code !== undefined, { timeout: 5_000 }).toBe(true);
    openAfter = rt.socket.readyState === WebSocket.OPEN;
  } finally {
    rt.close();
    await closed;
  }
  return { events: events.slice(1), code, openAfter, received: connection.received.map((event) => event.type) };
}

const anError = (events: RealtimeEvent[]) => events.some((event) => event.type === 'error');
const errorOf = (events: RealtimeEvent[]) => events.find((event) => event.type === 'error') as { event_id: string; error: Record<string, unknown> } | undefined;

describe('bad first frames the upstream answers', () => {
  it.each([
    ['text that is not JSON', 'hello', 'could not be parsed'],
    ['a binary frame', Buffer.from([1, 2, 3]), 'could not be parsed'],
    ['JSON that is not an object', '[1,2]', 'must be a JSON object'],
    ['an unknown event type', '{"type":"bogus","event_id":"evt_c1"}', 'Unknown client event type'],
  ])('%s: the upstream\'s error event, the session kept, nothing charged', async (_label, frame, message) => {
    const before = await spent();
    const seen = await sendFirst(frame, anError);
    expect(errorOf(seen.events)?.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining(message) });
    expect(seen.openAfter).toBe(true);
    expect(await spent()).toEqual(before);
  });
});

describe('session.update the gateway refuses itself', () => {
  it.each([
    ['session.model a number', { model: 5 }, 'session.model', 'invalid_type', /expected a string, but got an integer/],
    ['session.model an array', { model: ['gpt-realtime-pro'] }, 'session.model', 'invalid_type', /got an array/],
    ['a transcription model an object', { audio: { input: { transcription: { model: { name: 'gpt-4o-transcribe' } } } } }, 'session.audio.input.transcription.model', 'invalid_type', /got an object/],
    ['a beta transcription model a boolean', { input_audio_transcription: { model: true } }, 'session.input_audio_transcription.model', 'invalid_type', /got a boolean/],
  ])('%s → error %s, not sent upstream, nothing charged', async (_label, session, param, code, message) => {
    const before = await spent();
    const seen = await sendFirst(JSON.stringify({ type: 'session.update', event_id: 'evt_typed', session }), anError);
    const refused = errorOf(seen.events);
    expect(refused?.error).toMatchObject({ type: 'invalid_request_error', code, param, event_id: 'evt_typed' });
    expect(refused?.error.message).toMatch(message);
    expect(seen.received).not.toContain('session.update');
    expect(seen.openAfter).toBe(true);
    expect(await spent()).toEqual(before);
  });

  it.each([
    ['session.model, the refused one first', '{"type":"session.update","event_id":"evt_dup","session":{"model":"gpt-realtime-pro","model":"gpt-realtime"}}', 'model'],
    ['session itself', '{"type":"session.update","event_id":"evt_dup","session":{"model":"gpt-realtime-pro"},"session":{}}', 'session'],
    ['a transcription model', '{"type":"session.update","event_id":"evt_dup","session":{"audio":{"input":{"transcription":{"model":"gpt-4o-transcribe","model":"gpt-realtime"}}}}}', 'model'],
  ])('a key named twice (%s) → error duplicate_key, not sent upstream', async (_label, frame, param) => {
    const before = await spent();
    const seen = await sendFirst(frame, anError);
    expect(errorOf(seen.events)?.error).toMatchObject({ type: 'invalid_request_error', code: 'duplicate_key', param, event_id: 'evt_dup' });
    expect(seen.received).not.toContain('session.update');
    expect(seen.openAfter).toBe(true);
    expect(await spent()).toEqual(before);
  });

  it('a session.update with one of each key goes through', async () => {
    const seen = await sendFirst('{"type":"session.update","session":{"model":"gpt-realtime","instructions":"hi"}}', (events) => events.some((event) => event.type === 'session.updated'));
    expect(seen.received).toContain('session.update');
    expect(anError(seen.events)).toBe(false);
  });
});

it('a frame over the size limit closes the session with 1009, nothing charged', async () => {
  const before = await spent();
  const seen = await sendFirst('x'.repeat(17 * 1024 * 1024), () => false);
  expect(seen.code).toBe(1009);
  expect(seen.received).toEqual([]);
  expect(await spent()).toEqual(before);
});

it('the error events that end two sessions (their keys withdrawn) have different event ids', async () => {
  const sessions = await Promise.all(endKeys.map((endKey) => openSdkSession(stack.front, endKey)));
  const codes = sessions.map(({ rt }) => new Promise<number>((resolve) => rt.socket.once('close', resolve)));
  const tokens = await gateway.gateway.services.database.db.selectFrom('tokens').select(['id', 'name']).where('name', 'in', ['end-1', 'end-2']).execute();
  for (const token of tokens) expect((await callAdmin(gateway, 'PUT', `/api/admin/tokens/${token.id}`, { body: { enabled: false } })).status).toBe(200);
  for (const { rt } of sessions) rt.socket.send(JSON.stringify({ type: 'response.create' }));
  expect(await Promise.all(codes)).toEqual([1008, 1008]);
  const ends = sessions.map(({ events }) => errorOf(events));
  for (const end of ends) expect(end?.error.message).toMatch(/The session is closed/);
  const ids = ends.map((end) => end?.event_id);
  expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
  expect(new Set(ids).size).toBe(2);
  await gateway.settled();
});

describe('refused updates sent with the upgrade request, before anything was read', () => {
  it('the upstream\'s session.created comes first, then the gateway\'s errors in order, then what the upstream answers', async () => {
    const before = await spent();
    const connections = stack.upstream.connections.length;
    const session = openPipelinedSession(gateway.url, '/v1/realtime?model=gpt-realtime', [`Authorization: Bearer ${key}`], [
      JSON.stringify({ type: 'session.update', event_id: 'evt_bad_1', session: { model: 5 } }),
      '{"type":"session.update","event_id":"evt_bad_2","session":{"model":"gpt-realtime-pro","model":"gpt-realtime"}}',
      JSON.stringify({ type: 'session.update', event_id: 'evt_good', session: { instructions: 'hi' } }),
    ]);
    try {
      await expect.poll(() => session.events.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(4);
      expect(session.status()).toMatch(/^HTTP\/1\.1 101 /);
      expect(session.events.map((event) => event.type)).toEqual(['session.created', 'error', 'error', 'session.updated']);
      const errors = session.events.filter((event) => event.type === 'error') as unknown as Array<{ error: Record<string, unknown> }>;
      expect(errors.map(({ error }) => [error.code, error.event_id])).toEqual([['invalid_type', 'evt_bad_1'], ['duplicate_key', 'evt_bad_2']]);
      expect(session.closeCode()).toBeUndefined();
      const received = stack.upstream.connections[connections]!.received;
      expect(received.map((event) => event.event_id)).toEqual(['evt_good']);
    } finally {
      session.end();
    }
    expect(await spent()).toEqual(before);
  });
});
