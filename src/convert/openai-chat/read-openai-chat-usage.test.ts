import { describe, expect, it } from 'vitest';
import { formatOpenaiChatUsage, readOpenaiChatUsage } from './read-openai-chat-usage.js';

describe('readOpenaiChatUsage', () => {
  it('reads OpenAI usage: cached tokens inside prompt tokens, reasoning inside completion tokens, raw kept', () => {
    const wire = { prompt_tokens: 2106, completion_tokens: 80, total_tokens: 2186, prompt_tokens_details: { cached_tokens: 1920 }, completion_tokens_details: { reasoning_tokens: 64 } };
    expect(readOpenaiChatUsage(wire)).toEqual({ input: { total: 2106, cacheRead: 1920, cacheWrite: 0 }, output: { total: 80, reasoning: 64 }, raw: wire });
  });

  it('reads DeepSeek cache hits when cached_tokens is absent', () => {
    expect(readOpenaiChatUsage({ prompt_tokens: 339, completion_tokens: 83, prompt_cache_hit_tokens: 320, prompt_cache_miss_tokens: 19 })?.input).toEqual({ total: 339, cacheRead: 320, cacheWrite: 0 });
  });

  it('reads cache writes reported as prompt_tokens_details.cache_write_tokens (OpenRouter)', () => {
    expect(readOpenaiChatUsage({ prompt_tokens: 2100, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 1800, cache_write_tokens: 200 } })?.input).toEqual({ total: 2100, cacheRead: 1800, cacheWrite: 200 });
  });

  it('never lets the parts exceed their totals', () => {
    expect(readOpenaiChatUsage({ prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 50 }, completion_tokens_details: { reasoning_tokens: 9 } })).toMatchObject({
      input: { total: 10, cacheRead: 10, cacheWrite: 0 },
      output: { total: 2, reasoning: 2 },
    });
  });

  it("reads an audio model's audio tokens: the input audio that fits in the uncached prompt, the output audio", () => {
    const wire = { prompt_tokens: 900, completion_tokens: 300, prompt_tokens_details: { cached_tokens: 200, audio_tokens: 800 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 250 } };
    expect(readOpenaiChatUsage(wire)).toMatchObject({ input: { total: 900, cacheRead: 200, cacheWrite: 0, audio: 700 }, output: { total: 300, reasoning: 0, audio: 250 } });
    // Zero audio (what OpenAI sends for text models) leaves the shape as it was.
    expect(readOpenaiChatUsage({ prompt_tokens: 9, completion_tokens: 1, prompt_tokens_details: { audio_tokens: 0 }, completion_tokens_details: { audio_tokens: 0 } })?.input).toEqual({ total: 9, cacheRead: 0, cacheWrite: 0 });
  });

  it('returns undefined for the null usage of intermediate chunks', () => {
    expect(readOpenaiChatUsage(null)).toBeUndefined();
  });
});

describe('formatOpenaiChatUsage', () => {
  it('writes totals that include cache and reasoning, and cache_write_tokens only when there were writes', () => {
    expect(formatOpenaiChatUsage({ input: { total: 2100, cacheRead: 1800, cacheWrite: 200 }, output: { total: 50, reasoning: 38 } })).toEqual({
      prompt_tokens: 2100,
      completion_tokens: 50,
      total_tokens: 2150,
      prompt_tokens_details: { cached_tokens: 1800, cache_write_tokens: 200 },
      completion_tokens_details: { reasoning_tokens: 38 },
    });
    expect(formatOpenaiChatUsage({ input: { total: 5, cacheRead: 0, cacheWrite: 0 }, output: { total: 1, reasoning: 0 } }).prompt_tokens_details).toEqual({ cached_tokens: 0 });
  });

  it("reads image_tokens in either details (OpenAI's prompt images, OpenRouter's image models) and writes them back", () => {
    const wire = { prompt_tokens: 1500, completion_tokens: 1400, prompt_tokens_details: { cached_tokens: 0, image_tokens: 1105 }, completion_tokens_details: { reasoning_tokens: 100, image_tokens: 1290 } };
    const usage = readOpenaiChatUsage(wire);
    expect(usage).toMatchObject({ input: { total: 1500, image: 1105 }, output: { total: 1400, reasoning: 100, image: 1290 } });
    const written = formatOpenaiChatUsage(usage ?? { input: { total: 0, cacheRead: 0, cacheWrite: 0 }, output: { total: 0, reasoning: 0 } });
    expect(written.prompt_tokens_details).toEqual({ cached_tokens: 0, image_tokens: 1105 });
    expect(written.completion_tokens_details).toEqual({ reasoning_tokens: 100, image_tokens: 1290 });
  });

  it('writes audio_tokens only when there was audio, and reads back what it wrote', () => {
    const usage = { input: { total: 900, cacheRead: 200, cacheWrite: 0, audio: 700 }, output: { total: 300, reasoning: 0, audio: 250 } };
    const wire = formatOpenaiChatUsage(usage);
    expect(wire.prompt_tokens_details).toEqual({ cached_tokens: 200, audio_tokens: 700 });
    expect(wire.completion_tokens_details).toEqual({ reasoning_tokens: 0, audio_tokens: 250 });
    const { raw: _raw, ...back } = readOpenaiChatUsage(wire) ?? {};
    expect(back).toEqual(usage);
  });
});
