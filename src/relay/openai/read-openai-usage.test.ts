import { describe, expect, it } from 'vitest';
import { readOpenaiUsage } from './read-openai-usage.js';

describe('readOpenaiUsage', () => {
  it("reads an audio model's audio tokens on the pass-through: input audio within the uncached prompt, output audio", () => {
    const wire = { prompt_tokens: 900, completion_tokens: 300, prompt_tokens_details: { cached_tokens: 200, audio_tokens: 800 }, completion_tokens_details: { audio_tokens: 250 } };
    expect(readOpenaiUsage(wire)).toMatchObject({ input: { total: 900, cacheRead: 200, cacheWrite: 0, audio: 700 }, output: { total: 300, reasoning: 0, audio: 250 } });
  });

  it('reads image_tokens on the pass-through (Chat details) and in the Images API shape (input and output details)', () => {
    expect(readOpenaiUsage({ prompt_tokens: 900, completion_tokens: 1300, completion_tokens_details: { image_tokens: 1290 } })).toMatchObject({ output: { total: 1300, image: 1290 } });
    const images = readOpenaiUsage({ input_tokens: 300, output_tokens: 4200, input_tokens_details: { text_tokens: 50, image_tokens: 250 }, output_tokens_details: { image_tokens: 4160, text_tokens: 40 } });
    expect(images).toMatchObject({ input: { total: 300, image: 250 }, output: { total: 4200, image: 4160 } });
  });

  it('leaves usage without audio as it was', () => {
    const wire = { prompt_tokens: 16, completion_tokens: 363, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 } };
    expect(readOpenaiUsage(wire)).toEqual({ input: { total: 16, cacheRead: 0, cacheWrite: 0 }, output: { total: 363, reasoning: 0 }, raw: wire });
  });

  it('reads a report that counts nothing as no report (Chat and Responses shapes), so the request is counted locally', () => {
    expect(readOpenaiUsage({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 })).toBeUndefined();
    expect(readOpenaiUsage({ prompt_tokens: 0, total_tokens: 0 })).toBeUndefined();
    expect(readOpenaiUsage({ input_tokens: 0, output_tokens: 0 })).toBeUndefined();
    expect(readOpenaiUsage({ prompt_tokens: 0, completion_tokens: 5, total_tokens: 5 })).toMatchObject({ input: { total: 0 }, output: { total: 5 } });
  });

  it('bills no output for an endpoint that makes none (embeddings): completion_tokens are dropped, and alone they are no report', () => {
    expect(readOpenaiUsage({ prompt_tokens: 8, completion_tokens: 8, total_tokens: 16 }, { billsOutput: false })).toMatchObject({ input: { total: 8 }, output: { total: 0, reasoning: 0 } });
    expect(readOpenaiUsage({ prompt_tokens: 0, completion_tokens: 8, total_tokens: 8 }, { billsOutput: false })).toBeUndefined();
    expect(readOpenaiUsage({ prompt_tokens: 0, total_tokens: 8 }, { billsOutput: false })).toMatchObject({ input: { total: 8 }, output: { total: 0 } });
  });
});
