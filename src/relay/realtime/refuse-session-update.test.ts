import { describe, expect, it } from 'vitest';
import { refuseSessionUpdate } from './refuse-session-update.js';

const session = { sessionModels: ['gpt-realtime', 'gpt-realtime-2025-08-28'], allowsModel: (model: string) => model === 'gpt-realtime' || model === 'whisper-1' };

describe('refuseSessionUpdate', () => {
  it('lets through updates that name no model, the session\'s own names, or allowed transcription models', () => {
    expect(refuseSessionUpdate({ type: 'session.update', session: { instructions: 'Be brief.' } }, session)).toBeUndefined();
    expect(refuseSessionUpdate({ type: 'session.update', session: { model: 'gpt-realtime-2025-08-28' } }, session)).toBeUndefined();
    expect(refuseSessionUpdate({ type: 'session.update', session: { input_audio_transcription: { model: 'whisper-1' } } }, session)).toBeUndefined();
    expect(refuseSessionUpdate({ type: 'session.update', session: { audio: { input: { transcription: null } } } }, session)).toBeUndefined();
  });

  it('refuses another session model and a transcription model the key may not use, naming the field', () => {
    expect(refuseSessionUpdate({ type: 'session.update', session: { model: 'gpt-realtime-pro' } }, session)?.param).toBe('session.model');
    expect(refuseSessionUpdate({ type: 'session.update', session: { audio: { input: { transcription: { model: 'gpt-4o-transcribe' } } } } }, session)?.param).toBe('session.audio.input.transcription.model');
    expect(refuseSessionUpdate({ type: 'transcription_session.update', session: { input_audio_transcription: { model: 'gpt-4o-transcribe' } } }, session)?.param).toBe('session.input_audio_transcription.model');
  });

  it('reads only session updates: other events quoting a model are not its business', () => {
    expect(refuseSessionUpdate({ type: 'response.create', response: { model: 'gpt-realtime-pro' } }, session)).toBeUndefined();
    expect(refuseSessionUpdate({ type: 'conversation.item.create', session: { model: 'gpt-realtime-pro' } }, session)).toBeUndefined();
  });

  it('refuses model fields that are not strings (invalid_type), null being none', () => {
    expect(refuseSessionUpdate({ type: 'session.update', session: { model: 5 } }, session)).toMatchObject({ param: 'session.model', code: 'invalid_type' });
    expect(refuseSessionUpdate({ type: 'session.update', session: { model: ['gpt-realtime'] } }, session)?.message).toMatch(/got an array/);
    expect(refuseSessionUpdate({ type: 'transcription_session.update', session: { input_audio_transcription: { model: {} } } }, session)).toMatchObject({ param: 'session.input_audio_transcription.model', code: 'invalid_type' });
    expect(refuseSessionUpdate({ type: 'session.update', session: { model: null, input_audio_transcription: { model: null } } }, session)).toBeUndefined();
  });

  it('refuses a frame naming a key twice (duplicate_key), read only for session updates', () => {
    const frame = '{"type":"session.update","session":{"model":"gpt-realtime-pro","model":"gpt-realtime"}}';
    expect(refuseSessionUpdate(JSON.parse(frame), session, () => frame)).toMatchObject({ param: 'model', code: 'duplicate_key' });
    let read = false;
    const other = '{"type":"response.create","response":{"a":1,"a":2}}';
    expect(refuseSessionUpdate(JSON.parse(other), session, () => ((read = true), other))).toBeUndefined();
    expect(read).toBe(false);
  });

  it('quotes a long model name cut to its first 128 characters, saying how much was cut', () => {
    const huge = `gpt-${'x'.repeat(1_000_000)}`;
    const sessionModel = refuseSessionUpdate({ type: 'session.update', session: { model: huge } }, session);
    expect(sessionModel?.message).toContain(`changed to ${huge.slice(0, 128)}… (999,876 more characters) (open`);
    expect(sessionModel?.message.length).toBeLessThan(400);
    const transcription = refuseSessionUpdate({ type: 'session.update', session: { input_audio_transcription: { model: huge } } }, session);
    expect(transcription?.message).toBe(`This API key may not use model ${huge.slice(0, 128)}… (999,876 more characters).`);
  });
});
