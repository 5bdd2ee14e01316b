/**
 * A realtime session is admitted, held and priced for its handshake's `?model=`, and the key's
 * `model_limits` were checked against that name alone (red-team audit, docs/behaviour.md "Realtime").
 * A `session.update` that names another session model, or a transcription model the key may not use, is
 * answered with an `error` event (`model_not_allowed`, the field as `param`) and never reaches the upstream:
 * before, a key limited to `gpt-realtime` set `gpt-4o-transcribe` and had every committed buffer transcribed
 * by it on the operator's account, and `session.model` went upstream unread. Through the openai SDK's
 * `OpenAIRealtimeWS` behind the TLS front.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeRealtimeUpstream } from '../fakes/fake-realtime-upstream.js';
import type { TestGateway } from '../support/start-test-gateway.js';
import { openSdkSession, startRealtimeSdkGateway, type RealtimeEvent, type RealtimeSdkGateway } from './realtime-sdk-gateway.js';

const channelKey = 'sk-up-realtime-limits-0123456789';
const prices = {
  'gpt-realtime': { input: 4, output: 16, audio_input: 32 },
  'gpt-realtime-pro': { input: 40, output: 160, audio_input: 320 },
  'gpt-4o-transcribe': { input: 2.5, output: 10, audio_input: 6 },
  'whisper-1': { per_second: 0.002 },
};
const limitedKey = `sk-${'l'.repeat(48)}`;
const transcribingKey = `sk-${'w'.repeat(48)}`;
const unlimitedKey = `sk-${'u'.repeat(48)}`;

let stack: RealtimeSdkGateway;
let upstream: FakeRealtimeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  const token = { quota: 0, unlimited_quota: true, expires_at: 0, enabled: true, user: 'u' } as const;
  stack = await startRealtimeSdkGateway({
    channelKey,
    models: ['gpt-realtime', 'gpt-realtime-pro'],
    config: {
      prices,
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000_000, enabled: true }],
      tokens: [
        { ...token, name: 'limited', key: limitedKey, model_limits: ['gpt-realtime'] },
        { ...token, name: 'transcribing', key: transcribingKey, model_limits: ['gpt-realtime', 'gpt-4o-transcribe'] },
        { ...token, name: 'unlimited', key: unlimitedKey },
      ],
    },
  });
  ({ upstream, gateway } = stack);
}, 30_000);
afterAll(() => stack.close(), 30_000);

/** Opens a session with `key`, sends one session.update, commits one audio buffer, closes; answers what the client saw and the upstream received. */
async function updateAndCommit(key: string, session: Record<string, unknown>) {
  const { rt, events, closed } = await openSdkSession(stack.front, key);
  const connection = upstream.connections.at(-1);
  rt.send({ type: 'session.update', event_id: 'evt_client_update', session } as never);
  await expect.poll(() => events.some((event) => event.type === 'session.updated' || event.type === 'error'), { timeout: 5_000 }).toBe(true);
  rt.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(3_200).toString('base64') });
  rt.send({ type: 'input_audio_buffer.commit' });
  await expect.poll(() => events.some((event) => event.type === 'input_audio_buffer.committed'), { timeout: 5_000 }).toBe(true);
  // A transcription, when there is one, follows the commit: let it arrive before the session ends.
  await new Promise((resolve) => setTimeout(resolve, 100));
  rt.close();
  await closed;
  await gateway.settled();
  return { events, received: (connection?.received ?? []).map((event) => event.type) };
}

async function transcriptionRows(): Promise<number> {
  const rows = await gateway.gateway.services.database.db.selectFrom('logs').select('model').where('style', '=', 'openai-realtime').execute();
  return rows.filter((row) => row.model !== 'gpt-realtime').length;
}

function refusal(events: RealtimeEvent[]) {
  const error = events.find((event) => event.type === 'error')?.error as Record<string, unknown> | undefined;
  return error === undefined ? undefined : { code: error.code, type: error.type, param: error.param, event_id: error.event_id };
}

describe('realtime session.update: models the session was not admitted for', () => {
  it('refuses a GA transcription model outside the key\'s model_limits: an error event, not sent upstream, nothing transcribed', async () => {
    const before = await transcriptionRows();
    const seen = await updateAndCommit(limitedKey, { type: 'realtime', audio: { input: { transcription: { model: 'gpt-4o-transcribe' } } } });
    expect(refusal(seen.events)).toEqual({ code: 'model_not_allowed', type: 'invalid_request_error', param: 'session.audio.input.transcription.model', event_id: 'evt_client_update' });
    expect(seen.received).not.toContain('session.update');
    expect(seen.events.some((event) => event.type === 'conversation.item.input_audio_transcription.completed')).toBe(false);
    expect(await transcriptionRows()).toBe(before);
  });

  it('refuses a beta input_audio_transcription model outside model_limits the same way', async () => {
    const seen = await updateAndCommit(limitedKey, { input_audio_transcription: { model: 'whisper-1' } });
    expect(refusal(seen.events)?.param).toBe('session.input_audio_transcription.model');
    expect(seen.received).not.toContain('session.update');
  });

  it('refuses a session.model other than the handshake\'s, for any key (the session is held and priced for its own)', async () => {
    const seen = await updateAndCommit(unlimitedKey, { type: 'realtime', model: 'gpt-realtime-pro' });
    expect(refusal(seen.events)).toEqual({ code: 'model_not_allowed', type: 'invalid_request_error', param: 'session.model', event_id: 'evt_client_update' });
    expect(seen.received).not.toContain('session.update');
  });

  it('gives each refusal an event id of its own, its error naming the client event it refuses', async () => {
    const { rt, events, closed } = await openSdkSession(stack.front, limitedKey);
    const connection = upstream.connections.at(-1);
    rt.send({ type: 'session.update', event_id: 'evt_client_first', session: { type: 'realtime', audio: { input: { transcription: { model: 'gpt-4o-transcribe' } } } } } as never);
    rt.send({ type: 'session.update', event_id: 'evt_client_second', session: { type: 'realtime', model: 'gpt-realtime-pro' } } as never);
    const errors = () => events.filter((event) => event.type === 'error');
    await expect.poll(() => errors().length, { timeout: 5_000 }).toBe(2);
    rt.close();
    await closed;
    await gateway.settled();
    const [first, second] = errors();
    expect(first?.event_id).toEqual(expect.any(String));
    expect(second?.event_id).toEqual(expect.any(String));
    expect(first?.event_id).not.toBe(second?.event_id);
    // Each names the client event it refuses, in its `error`; neither update reached the upstream.
    expect(errors().map((event) => (event.error as Record<string, unknown>).event_id)).toEqual(['evt_client_first', 'evt_client_second']);
    // Nor is a refusal's id one of the session's other server events'.
    expect(events.filter((event) => event.event_id === first?.event_id || event.event_id === second?.event_id)).toHaveLength(2);
    expect((connection?.received ?? []).map((event) => event.type)).not.toContain('session.update');
  });

  it('quotes a huge refused model name cut short in the error frame, saying how much was cut', async () => {
    const huge = `gpt-4o-transcribe-${'x'.repeat(1_000_000)}`;
    const { rt, events, closed } = await openSdkSession(stack.front, limitedKey);
    const frames: number[] = [];
    rt.socket.on('message', (data: Buffer) => frames.push(data.length));
    rt.send({ type: 'session.update', event_id: 'evt_client_huge', session: { type: 'realtime', audio: { input: { transcription: { model: huge } } } } } as never);
    await expect.poll(() => events.some((event) => event.type === 'error'), { timeout: 5_000 }).toBe(true);
    rt.close();
    await closed;
    const error = events.find((event) => event.type === 'error')?.error as Record<string, unknown>;
    expect(error).toMatchObject({ code: 'model_not_allowed', param: 'session.audio.input.transcription.model', event_id: 'evt_client_huge' });
    expect(error.message).toContain(`This API key may not use model ${huge.slice(0, 128)}… (${(huge.length - 128).toLocaleString('en-US')} more characters).`);
    expect(Math.max(...frames)).toBeLessThan(1_024);
  });

  it('control: a transcription model within model_limits, or any for an unlimited key, is set and billed', async () => {
    const before = await transcriptionRows();
    for (const key of [transcribingKey, unlimitedKey]) {
      const seen = await updateAndCommit(key, { type: 'realtime', model: 'gpt-realtime', audio: { input: { transcription: { model: 'gpt-4o-transcribe' } } } });
      expect(refusal(seen.events)).toBeUndefined();
      expect(seen.received).toContain('session.update');
      expect(seen.events.some((event) => event.type === 'conversation.item.input_audio_transcription.completed')).toBe(true);
    }
    expect(await transcriptionRows()).toBe(before + 2);
  });

  it('control: a limited key\'s update without a model (instructions, voice) goes through', async () => {
    const seen = await updateAndCommit(limitedKey, { type: 'realtime', instructions: 'Be brief.' });
    expect(refusal(seen.events)).toBeUndefined();
    expect(seen.received).toContain('session.update');
  });
});
