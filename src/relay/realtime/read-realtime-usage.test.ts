import { describe, expect, it } from 'vitest';
import { readRealtimeUsage, refusedEventIdOf, responseIdOf, textDeltaOf } from './read-realtime-usage.js';

const frame = (event: unknown) => Buffer.from(JSON.stringify(event));

describe('textDeltaOf', () => {
  it('reads text and transcript deltas, GA and beta, but not audio', () => {
    expect(textDeltaOf({ type: 'response.output_text.delta', response_id: 'resp_1', delta: 'a' })).toEqual({ responseId: 'resp_1', text: 'a' });
    expect(textDeltaOf({ type: 'response.text.delta', delta: 'b' })).toEqual({ responseId: undefined, text: 'b' });
    expect(textDeltaOf({ type: 'response.output_audio_transcript.delta', delta: 'c' })?.text).toBe('c');
    expect(textDeltaOf({ type: 'response.audio_transcript.delta', delta: 'd' })?.text).toBe('d');
    expect(textDeltaOf({ type: 'response.function_call_arguments.delta', response_id: 'resp_2', delta: '{"a"' })).toEqual({ responseId: 'resp_2', text: '{"a"' });
    expect(responseIdOf({ type: 'response.created', response: { id: 'resp_3' } })).toBe('resp_3');
    expect(responseIdOf({ type: 'response.created', response: {} })).toBeUndefined();
    expect(textDeltaOf({ type: 'response.output_audio.delta', delta: 'AAAA' })).toBeUndefined();
    expect(textDeltaOf({ type: 'response.output_text.delta', delta: 3 })).toBeUndefined();
  });
});

describe('refusedEventIdOf', () => {
  it('reads the client event an error is about, and nothing from other events', () => {
    expect(refusedEventIdOf({ type: 'error', error: { type: 'invalid_request_error', code: 'conversation_already_has_active_response', event_id: 'evt_1' } })).toBe('evt_1');
    expect(refusedEventIdOf({ type: 'error', error: { event_id: null } })).toBeUndefined();
    expect(refusedEventIdOf({ type: 'response.done', error: { event_id: 'evt_1' } })).toBeUndefined();
  });
});

describe('readRealtimeUsage', () => {
  it('reads input, cached input and output tokens', () => {
    const event = { type: 'response.done', response: { usage: { total_tokens: 150, input_tokens: 120, output_tokens: 30, input_token_details: { cached_tokens: 20, audio_tokens: 0 } } } };
    expect(readRealtimeUsage(event)).toEqual({ input: { total: 120, cacheRead: 20, cacheWrite: 0 }, output: { total: 30, reasoning: 0 } });
  });

  it('reads the uncached audio input and the audio output, as the audio shares billing prices apart', () => {
    const usage = {
      total_tokens: 1700, input_tokens: 1500, output_tokens: 200,
      input_token_details: { text_tokens: 300, audio_tokens: 1200, cached_tokens: 500, cached_tokens_details: { text_tokens: 100, audio_tokens: 400 } },
      output_token_details: { text_tokens: 50, audio_tokens: 150 },
    };
    expect(readRealtimeUsage({ type: 'response.done', response: { usage } })).toEqual({ input: { total: 1500, cacheRead: 500, cacheWrite: 0, audio: 800 }, output: { total: 200, reasoning: 0, audio: 150 } });
    // Without the cached split, the audio that fits in the uncached input.
    const unsplit = { input_tokens: 1000, output_tokens: 10, input_token_details: { audio_tokens: 1000, cached_tokens: 600 }, output_token_details: { audio_tokens: 99 } };
    expect(readRealtimeUsage({ type: 'response.done', response: { usage: unsplit } })).toEqual({ input: { total: 1000, cacheRead: 600, cacheWrite: 0, audio: 400 }, output: { total: 10, reasoning: 0, audio: 10 } });
  });

  it('reads the uncached image input beside the audio (gpt-realtime bills input images above text)', () => {
    const usage = {
      input_tokens: 2000, output_tokens: 20,
      input_token_details: { text_tokens: 300, audio_tokens: 900, image_tokens: 800, cached_tokens: 700, cached_tokens_details: { audio_tokens: 400, image_tokens: 300 } },
    };
    expect(readRealtimeUsage({ type: 'response.done', response: { usage } })).toEqual({ input: { total: 2000, cacheRead: 700, cacheWrite: 0, audio: 500, image: 500 }, output: { total: 20, reasoning: 0 } });
  });

  it('never reads more cached tokens than input tokens', () => {
    expect(readRealtimeUsage({ type: 'response.done', response: { usage: { input_tokens: 5, output_tokens: 1, input_token_details: { cached_tokens: 50 } } } })?.input.cacheRead).toBe(5);
  });

  it('reads nothing from events without usage or with counts that are not numbers', () => {
    expect(readRealtimeUsage({ type: 'response.done', response: { status: 'failed' } })).toBeUndefined();
    expect(readRealtimeUsage({ type: 'response.done', response: { usage: { input_tokens: '12', output_tokens: 3 } } })).toBeUndefined();
    expect(readRealtimeUsage({ type: 'response.done', response: { usage: { input_tokens: null, output_tokens: 3 } } })).toBeUndefined();
    expect(readRealtimeUsage({ type: 'response.created', response: { usage: { input_tokens: 1, output_tokens: 3 } } })).toBeUndefined();
  });

  it('floors fractional counts, and keeps negative and huge ones as they came, for pricing to refuse (charged the hold)', () => {
    expect(readRealtimeUsage({ type: 'response.done', response: { usage: { input_tokens: 1.5, output_tokens: 3.9 } } })).toEqual({ input: { total: 1, cacheRead: 0, cacheWrite: 0 }, output: { total: 3, reasoning: 0 } });
    expect(readRealtimeUsage({ type: 'response.done', response: { usage: { input_tokens: -1, output_tokens: 3 } } })?.input.total).toBe(-1);
    expect(readRealtimeUsage({ type: 'response.done', response: { usage: { input_tokens: 1e16, output_tokens: 10 } } })?.input.total).toBe(1e16);
    expect(readRealtimeUsage({ type: 'response.done', response: { usage: { input_tokens: 100, output_tokens: 10, input_token_details: { cached_tokens: -5 } } } })?.input.cacheRead).toBe(-5);
  });
});
