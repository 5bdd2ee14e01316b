import { describe, expect, it } from 'vitest';
import { audioBytesPerSecondOf, audioDeltaOf, base64ByteLength, readAudioDeltaFrame, responseOutputAudioRate, sessionOutputAudioRate } from './read-realtime-audio.js';
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
  });
});

describe('base64ByteLength', () => {
  it('reads the bytes of base64 with no, one and two `=` of padding', () => {
    // Lengths 0 to 6: every padding (3n: none, 3n+1: two, 3n+2: one), and an empty text.
    for (const length of [0, 1, 2, 3, 4, 5, 6, 99, 4_801]) expect(base64ByteLength(Buffer.alloc(length).toString('base64'))).toBe(length);
    expect(base64ByteLength('=')).toBe(0);
    expect(base64ByteLength('==')).toBe(0);
  });
});

describe('readAudioDeltaFrame', () => {
  /** An audio delta frame as OpenAI serializes it: `type` first, no whitespace. */
  const frameOf = (event: Record<string, unknown>) => Buffer.from(JSON.stringify(event));
  const ga = (bytes: number, rest: Record<string, unknown> = {}) => ({ type: 'response.output_audio.delta', event_id: 'event_1', response_id: 'resp_1', item_id: 'item_1', output_index: 0, content_index: 0, delta: Buffer.alloc(bytes, 9).toString('base64'), ...rest });

  it('reads the bytes and response of GA and beta audio delta frames as the parsed event does, for every padding', () => {
    for (const bytes of [0, 1, 2, 3, 4, 5, 4_800, 24_001]) {
      const { type, delta, ...fields } = ga(bytes);
      // Last (OpenAI's order), beta, without a response, and right after `type`.
      for (const event of [ga(bytes), { ...ga(bytes), type: 'response.audio.delta' }, ga(bytes, { response_id: undefined }), { type, delta, ...fields }]) {
        const frame = frameOf(event);
        expect(readAudioDeltaFrame(frame)).toEqual({ responseId: event.response_id, bytes });
        expect(readAudioDeltaFrame(frame)).toEqual(audioDeltaOf(JSON.parse(frame.toString())));
      }
    }
  });

  it('reads the fields around the delta as JSON.parse does (escapes and unicode in the response id, a delta key last or first)', () => {
    expect(readAudioDeltaFrame(frameOf(ga(3, { response_id: 'r\\"é\u2028' })))).toEqual({ responseId: 'r\\"é\u2028', bytes: 3 });
    expect(readAudioDeltaFrame(Buffer.from('{"type":"response.output_audio.delta","delta":"AAAA","response_id":"resp_9"}'))).toEqual({ responseId: 'resp_9', bytes: 3 });
    expect(readAudioDeltaFrame(Buffer.from('{"type":"response.output_audio.delta","response_id":null,"delta":"AAAA"}'))).toEqual({ responseId: undefined, bytes: 3 });
  });

  it('leaves frames that do not begin as an audio delta, or whose delta is not plain base64, to the parsed path', () => {
    const fallbacks = [
      // Not an audio delta, or not with `type` first.
      '{"type":"response.output_audio_transcript.delta","response_id":"r","delta":"AAAA"}',
      '{"type":"response.output_audio.delta.x","delta":"AAAA"}',
      '{"response_id":"r","type":"response.output_audio.delta","delta":"AAAA"}',
      '{ "type":"response.output_audio.delta","delta":"AAAA"}',
      // No `delta` to read this way: spaced, not a string, missing.
      '{"type":"response.output_audio.delta","delta" : "AAAA"}',
      '{"type":"response.output_audio.delta","delta":3}',
      '{"type":"response.output_audio.delta","response_id":"r"}',
      // A value with escapes or beyond ASCII: JSON.parse reads another text.
      '{"type":"response.output_audio.delta","delta":"AA\\/A"}',
      '{"type":"response.output_audio.delta","delta":"AA\\"A"}',
      '{"type":"response.output_audio.delta","delta":"AAéA"}',
      // The key found is not the only `delta`, or not a key of its own (an escaped quote before it).
      '{"type":"response.output_audio.delta","delta":"AAAA","delta":""}',
      '{"type":"response.output_audio.delta","x\\"delta":"AAAA","delta":"AAAAAAAA"}',
      // A later `type` the parse would keep, or a frame that is no JSON.
      '{"type":"response.output_audio.delta","delta":"AAAA","type":"response.output_text.delta"}',
      '{"type":"response.output_audio.delta","delta":"AAAA"',
      '{"type":"response.output_audio.delta","delta":"AAAA',
    ];
    for (const text of fallbacks) expect(readAudioDeltaFrame(Buffer.from(text)), text).toBeUndefined();
    // What the parsed path then reads of those that are audio deltas after all.
    expect(audioDeltaOf(JSON.parse('{"response_id":"r","type":"response.output_audio.delta","delta":"AAAA"}'))).toEqual({ responseId: 'r', bytes: 3 });
    expect(audioDeltaOf(JSON.parse('{"type":"response.output_audio.delta","x\\"delta":"AAAA","delta":"AAAAAAAA"}'))).toEqual({ responseId: undefined, bytes: 6 });
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

  it("counts the client's text before a response as its input, only when the response produced output", async () => {
    const spoke = new ResponseCount();
    spoke.input.add('What is the weather in Paris today?');
    spoke.addAudio(48_000, 48_000);
    const inputTokens = await spoke.input.total();
    expect(inputTokens).toBeGreaterThan(0);
    // With the deltas of no known response beside it, as a cut response is billed.
    const usage = await usageOfCounts([spoke, new ResponseCount()]);
    expect([usage.input.total, usage.input.audio, usage.output.total, usage.output.audio]).toEqual([inputTokens, undefined, 20, 20]);
    // Cut before it wrote anything: the model may never have read its input.
    const silent = new ResponseCount();
    silent.input.add('What is the weather in Paris today?');
    expect((await usageOfCounts([silent])).input.total).toBe(0);
  });
});
