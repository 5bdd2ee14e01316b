/**
 * A Realtime session that ends before the upstream's first frame (`session.created`) reached the client
 * (docs/behaviour.md "Realtime"): the gateway's own events wait for that frame, and they were dropped when
 * the session ended first — the client got a bare close, never the `error` event its SDK shows. Now what
 * waits goes before the close frame: a key disabled before the upstream said anything (the session-ending
 * `error`, then 1008), an upstream that closes after a refused update (the update's `error`, then the
 * upstream's code), and a client that makes the gateway hold more than it may (every `error` made, then
 * 1008 with its reason). Through the openai SDK's `OpenAIRealtimeWS`, against the fake upstream holding its
 * first frame. The bound on what the gateway holds is shrunk to 4 KiB here (64 MiB in the gateway), so a
 * dozen refused updates pass it.
 */
import type { OpenAIRealtimeError } from 'openai/realtime/internal-base';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { callAdmin } from '../admin/admin-client.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { dialSdkSession, startRealtimeSdkGateway, type RealtimeSdkGateway, type SdkSession } from './realtime-sdk-gateway.js';

vi.mock('../../src/relay/realtime/connect-realtime-upstream.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/relay/realtime/connect-realtime-upstream.js')>()),
  maxBufferedRealtimeBytes: 4 * 1024,
}));

const key = `sk-${'e'.repeat(48)}`;
const disabledKey = `sk-${'d'.repeat(48)}`;
let stack: RealtimeSdkGateway;
let gateway: TestGateway;

beforeAll(async () => {
  const token = { quota: 1_000_000_000, unlimited_quota: false, expires_at: 0, enabled: true, user: 'u', model_limits: ['gpt-realtime'] };
  stack = await startRealtimeSdkGateway({
    channelKey: 'sk-up-ends-early-0123456789',
    models: ['gpt-realtime', 'gpt-realtime-pro'],
    config: {
      prices: { 'gpt-realtime': { input: 4, output: 16 }, 'gpt-realtime-pro': { input: 40, output: 160 } },
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ ...token, name: 'early', key }, { ...token, name: 'disabled-early', key: disabledKey }],
    },
  });
  gateway = stack.gateway;
  stack.upstream.holdFirstFrames(true);
}, 30_000);
afterEach(() => stack.upstream.releaseFirstFrames());
afterAll(() => stack.close(), 30_000);

/**
 * Dials a session whose upstream holds its first frame; answers it once the client is accepted (the
 * upstream session is open by then), with what the client saw in order: each event's type, the SDK's
 * `error`s, and the close.
 */
async function dialHeld(sessionKey: string) {
  const session = dialSdkSession(stack.front, sessionKey);
  const seen: string[] = [];
  const sdkErrors: OpenAIRealtimeError[] = [];
  session.rt.on('event', (event) => seen.push(event.type));
  session.rt.on('error', (error) => sdkErrors.push(error));
  session.rt.socket.on('close', (code: number, reason: Buffer) => seen.push(`close ${code} ${reason.toString('utf8')}`.trim()));
  await new Promise<void>((resolve, reject) => {
    session.rt.socket.once('open', () => resolve());
    session.rt.socket.once('error', reject);
  });
  return { ...session, seen, sdkErrors, upstream: stack.upstream.connections.at(-1)! };
}

/** The error events the client got, as `[code, client event id]`. */
function errorsOf(session: SdkSession): unknown[][] {
  return session.events.filter((event) => event.type === 'error').map((event) => {
    const error = event.error as Record<string, unknown>;
    return [error.code, error.event_id];
  });
}

async function nothingHeld(): Promise<void> {
  const { db } = gateway.gateway.services.database;
  await expect.poll(async () => (await db.selectFrom('quota_reservations').select('id').where('state', '=', 'reserved').execute()).length, { timeout: 5_000 }).toBe(0);
  await gateway.settled();
}

it('a key disabled before the upstream\'s first frame: the session-ending error event (which the SDK surfaces), then 1008', async () => {
  const session = await dialHeld(disabledKey);
  const [token] = await gateway.gateway.services.database.db.selectFrom('tokens').select('id').where('name', '=', 'disabled-early').execute();
  expect((await callAdmin(gateway, 'PUT', `/api/admin/tokens/${token!.id}`, { body: { enabled: false } })).status).toBe(200);
  session.rt.send({ type: 'response.create', event_id: 'evt_after_disable' });
  expect(await session.closed).toEqual({ code: 1008, reason: 'access withdrawn' });
  expect(session.seen).toEqual(['error', 'close 1008 access withdrawn']);
  expect(errorsOf(session)).toEqual([['token_disabled', null]]);
  expect(session.sdkErrors.map((error) => error.error?.code)).toEqual(['token_disabled']);
  expect(session.sdkErrors[0]?.message).toMatch(/The session is closed/);
  expect(session.upstream.received).toEqual([]);
  await nothingHeld();
});

it('a refused session.update, then the upstream closes before its first frame: the update\'s error event, then the upstream\'s close code', async () => {
  const session = await dialHeld(key);
  session.rt.send({ type: 'session.update', event_id: 'evt_refused', session: { type: 'realtime', model: 'gpt-realtime-pro' } } as never);
  // Frames are read in order: once the next one reached the upstream, the refused one was answered (held).
  session.rt.send({ type: 'input_audio_buffer.clear', event_id: 'evt_relayed' });
  await expect.poll(() => session.upstream.received.map((event) => event.event_id), { timeout: 5_000 }).toEqual(['evt_relayed']);
  expect(session.seen).toEqual([]);
  stack.upstream.dropAll();
  expect((await session.closed).code).toBe(1011);
  expect(session.seen).toEqual(['error', 'close 1011']);
  expect(errorsOf(session)).toEqual([['model_not_allowed', 'evt_refused']]);
  expect(session.sdkErrors.map((error) => error.error?.param)).toEqual(['session.model']);
  await nothingHeld();
});

it('more refused updates than the gateway may hold before the upstream\'s first frame: every error made, in order, then 1008 with its reason', async () => {
  const session = await dialHeld(key);
  const sent = Array.from({ length: 40 }, (_, index) => `evt_refused_${index + 1}`);
  for (const eventId of sent) session.rt.send({ type: 'session.update', event_id: eventId, session: { type: 'realtime', model: 'gpt-realtime-pro' } } as never);
  expect(await session.closed).toEqual({ code: 1008, reason: 'too many refused events before the session started' });
  const errors = errorsOf(session);
  // 4 KiB holds about ten: the one that did not fit is answered too, and the session ends with it.
  expect(errors.length).toBeGreaterThan(2);
  expect(errors.length).toBeLessThan(sent.length);
  expect(errors).toEqual(sent.slice(0, errors.length).map((eventId) => ['model_not_allowed', eventId]));
  expect(session.seen).toEqual([...errors.map(() => 'error'), 'close 1008 too many refused events before the session started']);
  expect(session.upstream.received).toEqual([]);
  await nothingHeld();
});
