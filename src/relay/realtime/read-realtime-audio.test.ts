import { describe, expect, it } from 'vitest';
import { audioBytesPerSecondOf, audioDeltaOf, base64ByteLength, responseOutputAudioRate, sessionOutputAudioRate } from './read-realtime-audio.js';
import { ResponseCount, usageOfCounts } from './response-count.js';

describe('audioBytesPerSecondOf', () => {
  it('reads GA and beta formats: pcm16 at 24 kHz is 48,000 bytes a second, G.711 8,000', () => {
    expect(audioBytesPerSecondOf({ type: 'audio/pcm', rate: 24_000 })).toBe(48_000);
    expect(audioBytesPerSecondOf({ type: 'audio/pcm' })).toBe(48_000);
    expect(audioBytesPerSecondOf({ type: 'audio/pcmu' })).toBe(8_000);
    expect(audioBytesPerSecondOf({ type: 'audio/pcma' })).toBe(8_000);
    expect(audioBytesPerSecondOf('pcm16')).toBe(48_000);
    expect(audioBytesPerSecondOf('g711_ulaw')).toBe(8_000);
    expect(audioBytesPerSecondOf('g711_alaw')).toBe(8_000);
    expect(audioBytesPerSecondOf('opus')).toBeUndefined();
    expect(audioBytesPerSecondOf({ type: 'audio/pcm', rate: -1 })).toBe(48_000);
  });
});

describe('sessionOutputAudioRate / responseOutputAudioRate', () => {
  it('reads the output format a session or a response names, GA and beta', () => {
    expect(sessionOutputAudioRate({ type: 'session.created', session: { audio: { output: { format: { type: 'audio/pcmu' } } } } })).toBe(8_000);
    expect(sessionOutputAudioRate({ type: 'session.updated', session: { output_audio_format: 'g711_alaw' } })).toBe(8_000);
    expect(sessionOutputAudioRate({ type: 'session.updated', session: { instructions: 'x' } })).toBeUndefined();
    expect(sessionOutputAudioRate({ type: 'response.created', session: { output_audio_format: 'g711_alaw' } })).toBeUndefined();
    expect(responseOutputAudioRate({ type: 'response.created', response: { id: 'r', audio: { output: { format: { type: 'audio/pcm', rate: 24_000 } } } } })).toBe(48_000);
    expect(responseOutputAudioRate({ type: 'response.created', response: { id: 'r', output_audio_format: 'g711_ulaw' } })).toBe(8_000);
    expect(responseOutputAudioRate({ type: 'response.created', response: { id: 'r' } })).toBeUndefined();
  });
});

describe('audioDeltaOf', () => {
  it('reads the audio bytes of GA and beta audio deltas without decoding them, and nothing else', () => {
    const audio = Buffer.alloc(4_801, 7).toString('base64');
    expect(audioDeltaOf({ type: 'response.output_audio.delta', response_id: 'resp_1', delta: audio })).toEqual({ responseId: 'resp_1', bytes: 4_801 });
    expect(audioDeltaOf({ type: 'response.audio.delta', delta: audio })).toEqual({ responseId: undefined, bytes: 4_801 });
    expect(audioDeltaOf({ type: 'response.output_audio_transcript.delta', delta: 'hi' })).toBeUndefined();
    expect(audioDeltaOf({ type: 'response.output_audio.delta', delta: 3 })).toBeUndefined();
    for (const length of [0, 1, 2, 3, 4, 5, 99]) expect(base64ByteLength(Buffer.alloc(length).toString('base64'))).toBe(length);
  });
});

describe('ResponseCount', () => {
  it('counts 20 audio output tokens a second of audio, whole ones, beside its text', async () => {
    const count = new ResponseCount();
    // 1.5 s of pcm16 in three deltas, and 0.3 s of G.711.
    for (let index = 0; index < 3; index += 1) count.addAudio(24_000, 48_000);
    count.addAudio(2_400, 8_000);
    expect(count.audioTokens).toBe(36);
    // 49 ms of audio is not a whole token.
    const short = new ResponseCount();
    short.addAudio(2_352, 48_000);
    expect(short.audioTokens).toBe(0);
    count.text.add('Hello');
    const usage = await usageOfCounts([count, short]);
    expect(usage.output.audio).toBe(36);
    expect(usage.output.total).toBe(36 + (await count.text.total()));
    expect(usage.input.total).toBe(0);
  });
});
