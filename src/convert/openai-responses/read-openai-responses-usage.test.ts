import { describe, expect, it } from 'vitest';
import { countWebSearchCalls, formatOpenaiResponsesUsage, readOpenaiResponsesUsage, withWebSearches } from './read-openai-responses-usage.js';

describe('countWebSearchCalls', () => {
  it('counts the web_search_call items of an output, whatever else it holds', () => {
    expect(countWebSearchCalls([{ type: 'web_search_call' }, { type: 'message' }, { type: 'web_search_call' }, null, 'x'])).toBe(2);
    expect(countWebSearchCalls(undefined)).toBe(0);
    expect(countWebSearchCalls(null)).toBe(0);
  });

  it('adds the searches to a usage only when there are some', () => {
    const usage = () => readOpenaiResponsesUsage({ input_tokens: 10, output_tokens: 2 })!;
    expect(withWebSearches(usage(), 2).webSearches).toBe(2);
    expect(withWebSearches(usage(), 0)).not.toHaveProperty('webSearches');
  });
});

describe('readOpenaiResponsesUsage', () => {
  it('reads image_tokens in either details as the image shares, clamped to the uncached input and the output', () => {
    const usage = { input_tokens: 1500, output_tokens: 1400, input_tokens_details: { cached_tokens: 300, image_tokens: 1000 }, output_tokens_details: { reasoning_tokens: 0, image_tokens: 1290 } };
    expect(readOpenaiResponsesUsage(usage)).toMatchObject({ input: { total: 1500, cacheRead: 300, image: 1000 }, output: { total: 1400, image: 1290 } });
    const overstated = { input_tokens: 100, output_tokens: 10, input_tokens_details: { cached_tokens: 60, image_tokens: 99 }, output_tokens_details: { image_tokens: 99 } };
    expect(readOpenaiResponsesUsage(overstated)).toMatchObject({ input: { image: 40 }, output: { image: 10 } });
    expect(readOpenaiResponsesUsage({ input_tokens: 10, output_tokens: 2 })).toEqual({ input: { total: 10, cacheRead: 0, cacheWrite: 0 }, output: { total: 2, reasoning: 0 }, raw: { input_tokens: 10, output_tokens: 2 } });
  });
});

describe('formatOpenaiResponsesUsage', () => {
  it('writes the image tokens in both details when there were some, and reads them back', () => {
    const usage = { input: { total: 1500, cacheRead: 300, cacheWrite: 0, image: 1000 }, output: { total: 1400, reasoning: 0, image: 1290 } };
    const wire = formatOpenaiResponsesUsage(usage);
    expect(wire.input_tokens_details).toEqual({ cached_tokens: 300, cache_write_tokens: 0, image_tokens: 1000 });
    expect(wire.output_tokens_details).toEqual({ reasoning_tokens: 0, image_tokens: 1290 });
    const read = readOpenaiResponsesUsage(wire)!;
    expect({ imageIn: read.input.image, imageOut: read.output.image }).toEqual({ imageIn: 1000, imageOut: 1290 });
  });

  it('writes no image_tokens without images', () => {
    const wire = formatOpenaiResponsesUsage({ input: { total: 10, cacheRead: 0, cacheWrite: 0 }, output: { total: 5, reasoning: 2, image: 0 } });
    expect(wire.input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 0 });
    expect(wire.output_tokens_details).toEqual({ reasoning_tokens: 2 });
  });
});
