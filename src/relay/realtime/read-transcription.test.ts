import { describe, expect, it } from 'vitest';
import { priceTranscription } from './price-transcription.js';
import { readTranscriptionUsage, sessionTranscriptionModel } from './read-transcription.js';

const completed = (usage: unknown) => ({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item_1', content_index: 0, transcript: 'hi', usage });

describe('readTranscriptionUsage', () => {
  it('reads token usage, its audio share from the details (all of the input without them)', () => {
    expect(readTranscriptionUsage(completed({ type: 'tokens', input_tokens: 20, output_tokens: 5, total_tokens: 25, input_token_details: { text_tokens: 4, audio_tokens: 16 } }))).toEqual({
      kind: 'tokens',
      usage: { input: { total: 20, cacheRead: 0, cacheWrite: 0, audio: 16 }, output: { total: 5, reasoning: 0 } },
    });
    expect(readTranscriptionUsage(completed({ type: 'tokens', input_tokens: 20, output_tokens: 5, total_tokens: 25 }))).toEqual({
      kind: 'tokens',
      usage: { input: { total: 20, cacheRead: 0, cacheWrite: 0, audio: 20 }, output: { total: 5, reasoning: 0 } },
    });
  });

  it('reads a duration, and refuses usage of no known shape', () => {
    expect(readTranscriptionUsage(completed({ type: 'duration', seconds: 2.5 }))).toEqual({ kind: 'duration', seconds: 2.5 });
    expect(readTranscriptionUsage(completed({ type: 'duration', seconds: -1 }))).toBeUndefined();
    expect(readTranscriptionUsage(completed({ type: 'tokens', input_tokens: '20', output_tokens: 5 }))).toBeUndefined();
    expect(readTranscriptionUsage(completed(undefined))).toBeUndefined();
    expect(readTranscriptionUsage({ type: 'response.done', usage: { input_tokens: 1, output_tokens: 1 } })).toBeUndefined();
  });
});

describe('sessionTranscriptionModel', () => {
  it('reads the GA and beta settings, null when transcription is turned off', () => {
    expect(sessionTranscriptionModel({ type: 'session.updated', session: { audio: { input: { transcription: { model: 'gpt-4o-transcribe' } } } } })).toBe('gpt-4o-transcribe');
    expect(sessionTranscriptionModel({ type: 'session.created', session: { input_audio_transcription: { model: 'whisper-1' } } })).toBe('whisper-1');
    expect(sessionTranscriptionModel({ type: 'transcription_session.updated', session: { input_audio_transcription: { model: 'whisper-1' } } })).toBe('whisper-1');
    expect(sessionTranscriptionModel({ type: 'session.updated', session: { audio: { input: { transcription: null } } } })).toBeNull();
    expect(sessionTranscriptionModel({ type: 'session.updated', session: { input_audio_transcription: null } })).toBeNull();
    expect(sessionTranscriptionModel({ type: 'session.updated', session: { instructions: 'x' } })).toBeUndefined();
    expect(sessionTranscriptionModel({ type: 'response.done', session: { input_audio_transcription: { model: 'whisper-1' } } })).toBeUndefined();
  });
});

describe('priceTranscription', () => {
  const session = { model: 'gpt-realtime', price: { model: 'gpt-realtime', input: 4, output: 16 } };
  const tokens = { kind: 'tokens' as const, usage: { input: { total: 10, cacheRead: 0, cacheWrite: 0, audio: 10 }, output: { total: 2, reasoning: 0 } } };
  const prices = new Map([
    ['gpt-4o-transcribe', { model: 'gpt-4o-transcribe', input: 2.5, output: 10, audioInput: 6 }],
    ['whisper-1', { model: 'whisper-1', perSecond: 0.002 }],
    ['per-call', { model: 'per-call', perCall: 0.01 }],
  ]);

  it("prices at the transcription model's own price: tokens, per second (rounded up), per call", () => {
    expect(priceTranscription('gpt-4o-transcribe', tokens, prices, false, session)).toMatchObject({ model: 'gpt-4o-transcribe', price: prices.get('gpt-4o-transcribe'), calls: 1, warning: undefined });
    expect(priceTranscription('whisper-1', { kind: 'duration', seconds: 2.01 }, prices, false, session)).toMatchObject({ price: { perCall: 0.002 }, calls: 3, warning: undefined });
    expect(priceTranscription('per-call', { kind: 'duration', seconds: 9 }, prices, false, session)).toMatchObject({ price: { perCall: 0.01 }, calls: 1 });
  });

  it('counts a duration as 10 audio tokens a second at token prices', () => {
    expect(priceTranscription('gpt-4o-transcribe', { kind: 'duration', seconds: 1.25 }, prices, false, session).usage).toEqual({ input: { total: 13, cacheRead: 0, cacheWrite: 0, audio: 13 }, output: { total: 0, reasoning: 0 } });
  });

  it("falls back to the session model's price (free only when unpriced models are allowed), with a warning", () => {
    expect(priceTranscription('unknown', tokens, prices, false, session)).toMatchObject({ model: 'unknown', price: session.price, warning: "transcription model unknown has no usable price: billed at gpt-realtime's price" });
    expect(priceTranscription(undefined, tokens, prices, false, session)).toMatchObject({ model: 'gpt-realtime', price: session.price, warning: "the session names no transcription model: billed at gpt-realtime's price" });
    // A per-second price cannot bill tokens.
    expect(priceTranscription('whisper-1', tokens, prices, false, session).price).toBe(session.price);
    expect(priceTranscription('unknown', tokens, prices, true, session)).toMatchObject({ price: { model: 'unknown' }, warning: 'transcription model unknown has no usable price: not billed' });
  });
});
