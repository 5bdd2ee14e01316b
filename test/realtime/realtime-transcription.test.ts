/**
 * Input-audio transcription in a realtime session (docs/behaviour.md "Realtime"): OpenAI bills each
 * `conversation.item.input_audio_transcription.completed` at the transcription model's rates, apart from
 * the session's responses. The gateway settles it from the session's hold at the transcription model's
 * price — its token prices (audio input at `audio_input`), or `per_second` for whisper-1's duration —
 * with a log row of its own; an unpriced transcription model is billed at the session model's price, with
 * a warning, never free. Through the openai SDK's `OpenAIRealtimeWS` behind the TLS front.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeRealtimeUpstream } from '../fakes/fake-realtime-upstream.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { openSdkSession, startRealtimeSdkGateway, type RealtimeSdkGateway } from './realtime-sdk-gateway.js';

const channelKey = 'sk-up-realtime-transcribe-0123456789';
const quotaPerUnit = 500_000;
const perToken = quotaPerUnit / 1_000_000;
const prices = {
  'gpt-realtime': { input: 4, output: 16, audio_input: 32 },
  'gpt-4o-transcribe': { input: 2.5, output: 10, audio_input: 6 },
  'whisper-1': { per_second: 0.002 },
};
const userKey = `sk-${'t'.repeat(48)}`;

let stack: RealtimeSdkGateway;
let upstream: FakeRealtimeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  stack = await startRealtimeSdkGateway({
    channelKey,
    config: {
      prices,
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [{ name: 'transcribing-key', user: 'u', key: userKey, quota: 0, unlimited_quota: true, expires_at: 0, enabled: true }],
    },
  });
  ({ upstream, gateway } = stack);
}, 30_000);
afterAll(() => stack.close(), 30_000);

const db = () => gateway.gateway.services.database.db;

async function usedQuota(): Promise<number> {
  const user = await db().selectFrom('users').select('used_quota').where('username', '=', 'u').executeTakeFirstOrThrow();
  return Number(user.used_quota);
}

/** Opens a session, sets its transcription with `session`, commits one audio buffer, waits for the transcript, closes. */
async function transcribeOnce(session: Record<string, unknown>): Promise<void> {
  const { rt, events, closed } = await openSdkSession(stack.front, userKey);
  rt.send({ type: 'session.update', session } as never);
  await expect.poll(() => events.some((event) => event.type === 'session.updated'), { timeout: 5_000 }).toBe(true);
  rt.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(3_200).toString('base64') });
  rt.send({ type: 'input_audio_buffer.commit' });
  await expect.poll(() => events.some((event) => event.type === 'conversation.item.input_audio_transcription.completed'), { timeout: 5_000 }).toBe(true);
  rt.close();
  await closed;
  await gateway.settled();
}

async function logsSince(id: number) {
  return db().selectFrom('logs').selectAll().where('style', '=', 'openai-realtime').where('id', '>', id).orderBy('id').execute();
}

async function lastLogId(): Promise<number> {
  const row = await db().selectFrom('logs').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row === undefined ? 0 : Number(row.id);
}

describe('Realtime input-audio transcription', () => {
  it("bills a GA session's gpt-4o-transcribe usage at that model's audio and output prices, in a log row of its own", async () => {
    const before = await usedQuota();
    const since = await lastLogId();
    upstream.setTranscriptionUsage({ audio_tokens: 160, output_tokens: 12, seconds: 0 });
    await transcribeOnce({ type: 'realtime', audio: { input: { transcription: { model: 'gpt-4o-transcribe' } } } });
    const charge = (160 * 6 + 12 * 10) * perToken;
    expect((await usedQuota()) - before).toBe(charge);
    const rows = await logsSince(since);
    const row = rows.find((log) => log.model === 'gpt-4o-transcribe');
    expect(row).toBeDefined();
    expect([Number(row?.input_tokens), Number(row?.audio_input_tokens), Number(row?.output_tokens), Number(row?.quota), row?.usage_source]).toEqual([160, 160, 12, charge, 'upstream']);
  });

  it("bills whisper-1's reported duration at its per_second price, whole seconds rounded up", async () => {
    const before = await usedQuota();
    upstream.setTranscriptionUsage({ audio_tokens: 0, output_tokens: 0, seconds: 2.4 });
    // The beta session shape: `input_audio_transcription` at the top of the session.
    await transcribeOnce({ input_audio_transcription: { model: 'whisper-1' } });
    expect((await usedQuota()) - before).toBe(3 * 0.002 * quotaPerUnit);
  });

  it("bills an unpriced transcription model at the session model's price and says so in the log", async () => {
    const before = await usedQuota();
    const since = await lastLogId();
    upstream.setTranscriptionUsage({ audio_tokens: 50, output_tokens: 5, seconds: 0 });
    await transcribeOnce({ type: 'realtime', audio: { input: { transcription: { model: 'gpt-4o-mini-transcribe' } } } });
    const charge = (50 * 32 + 5 * 16) * perToken;
    expect((await usedQuota()) - before).toBe(charge);
    const row = (await logsSince(since)).find((log) => log.model === 'gpt-4o-mini-transcribe');
    expect(Number(row?.quota)).toBe(charge);
    expect(JSON.parse(String(row?.warnings))).toEqual(["transcription model gpt-4o-mini-transcribe has no usable price: billed at gpt-realtime's price"]);
  });

  it('bills nothing for audio committed without a transcription model', async () => {
    const before = await usedQuota();
    const since = await lastLogId();
    await transcribeOnceWithout();
    expect((await usedQuota()) - before).toBe(0);
    expect(await logsSince(since)).toEqual([]);
  });
});

/** A session that commits audio with no transcription set: the upstream reports no transcription. */
async function transcribeOnceWithout(): Promise<void> {
  const { rt, events, closed } = await openSdkSession(stack.front, userKey);
  rt.send({ type: 'input_audio_buffer.commit' });
  await expect.poll(() => events.some((event) => event.type === 'input_audio_buffer.committed'), { timeout: 5_000 }).toBe(true);
  rt.close();
  await closed;
  await gateway.settled();
}
