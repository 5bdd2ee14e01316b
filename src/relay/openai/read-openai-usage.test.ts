import { describe, expect, it } from 'vitest';
import { readOpenaiUsage } from './read-openai-usage.js';

describe('readOpenaiUsage', () => {
  it("reads an audio model's audio tokens on the pass-through: input audio within the uncached prompt, output audio", () => {
    const wire = { prompt_tokens: 900, completion_tokens: 300, prompt_tokens_details: { cached_tokens: 200, audio_tokens: 800 }, completion_tokens_details: { audio_tokens: 250 } };
    expect(readOpenaiUsage(wire)).toMatchObject({ input: { total: 900, cacheRead: 200, cacheWrite: 0, audio: 700 }, output: { total: 300, reasoning: 0, audio: 250 } });
  });

  it('leaves usage without audio as it was', () => {
    const wire = { prompt_tokens: 16, completion_tokens: 363, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 } };
    expect(readOpenaiUsage(wire)).toEqual({ input: { total: 16, cacheRead: 0, cacheWrite: 0 }, output: { total: 363, reasoning: 0 }, raw: wire });
  });
});
