import { describe, expect, it } from 'vitest';
import { formatGeminiUsage, keepEarlierShares, readGeminiUsage, reportsGeminiOutput } from './read-gemini-usage.js';

describe('readGeminiUsage', () => {
  it('keeps cached tokens inside the input, adds thoughts to the output and tool-use prompts to the input', () => {
    // vercel/ai packages/google/src/__fixtures__/google-usage-raw-live.chunks.txt (a live recording).
    const wire = {
      promptTokenCount: 12,
      candidatesTokenCount: 71,
      totalTokenCount: 237,
      cachedContentTokenCount: 4,
      toolUsePromptTokenCount: 65,
      thoughtsTokenCount: 89,
      serviceTier: 'standard',
    };
    const usage = readGeminiUsage(wire);
    expect(usage).toEqual({ input: { total: 77, cacheRead: 4, cacheWrite: 0 }, output: { total: 160, reasoning: 89 }, raw: wire });
    expect((usage?.input.total ?? 0) + (usage?.output.total ?? 0)).toBe(wire.totalTokenCount);
  });

  it("reads the IMAGE entries beside the AUDIO ones: an image model's picture is image output", () => {
    const wire = {
      promptTokenCount: 1600, candidatesTokenCount: 1300, totalTokenCount: 2900, cachedContentTokenCount: 300,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 42 }, { modality: 'IMAGE', tokenCount: 1290 }, { modality: 'AUDIO', tokenCount: 268 }],
      cacheTokensDetails: [{ modality: 'IMAGE', tokenCount: 258 }, { modality: 'TEXT', tokenCount: 42 }],
      candidatesTokensDetails: [{ modality: 'IMAGE', tokenCount: 1290 }, { modality: 'TEXT', tokenCount: 10 }],
    };
    expect(readGeminiUsage(wire)).toMatchObject({ input: { total: 1600, cacheRead: 300, audio: 268, image: 1032 }, output: { total: 1300, image: 1290 } });
    // Without image entries the shape is as before.
    expect(readGeminiUsage({ promptTokenCount: 10, candidatesTokenCount: 5 })).toEqual({ input: { total: 10, cacheRead: 0, cacheWrite: 0 }, output: { total: 5, reasoning: 0 }, raw: { promptTokenCount: 10, candidatesTokenCount: 5 } });
  });

  it('reads the AUDIO entries: prompt audio less cached audio, and candidates audio', () => {
    const wire = {
      promptTokenCount: 1000, candidatesTokenCount: 300, totalTokenCount: 1300, cachedContentTokenCount: 400,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: 200 }, { modality: 'AUDIO', tokenCount: 800 }],
      cacheTokensDetails: [{ modality: 'AUDIO', tokenCount: 300 }, { modality: 'TEXT', tokenCount: 100 }],
      candidatesTokensDetails: [{ modality: 'AUDIO', tokenCount: 280 }, { modality: 'TEXT', tokenCount: 20 }],
    };
    expect(readGeminiUsage(wire)).toMatchObject({ input: { total: 1000, cacheRead: 400, cacheWrite: 0, audio: 500 }, output: { total: 300, reasoning: 0, audio: 280 } });
    expect(readGeminiUsage({ promptTokenCount: 5, candidatesTokenCount: 1, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 5 }] })?.input).toEqual({ total: 5, cacheRead: 0, cacheWrite: 0 });
  });

  it('keeps the reported counts when the modality details are null or malformed (relays write an empty list as null)', () => {
    const reported = { promptTokenCount: 1200, candidatesTokenCount: 90, totalTokenCount: 1290 };
    expect(readGeminiUsage({ ...reported, promptTokensDetails: null, candidatesTokensDetails: null })).toMatchObject({ input: { total: 1200, cacheRead: 0, cacheWrite: 0 }, output: { total: 90, reasoning: 0 } });
    const partial = readGeminiUsage({ ...reported, promptTokensDetails: [{ modality: 'TEXT', tokenCount: null }, { modality: 'AUDIO', tokenCount: 700 }, null, 'x'] });
    expect(partial).toMatchObject({ input: { total: 1200, audio: 700 }, output: { total: 90 } });
  });

  it('reads nothing from metadata without token counts', () => {
    expect(readGeminiUsage({ trafficType: 'ON_DEMAND' })).toBeUndefined();
    expect(readGeminiUsage(undefined)).toBeUndefined();
  });

  it('formats back the numbers it reads', () => {
    const usage = { input: { total: 2100, cacheRead: 1800, cacheWrite: 0 }, output: { total: 50, reasoning: 38 } };
    const { value, warnings } = formatGeminiUsage(usage);
    expect(value).toEqual({ promptTokenCount: 2100, candidatesTokenCount: 12, totalTokenCount: 2150, cachedContentTokenCount: 1800, thoughtsTokenCount: 38 });
    expect(warnings).toEqual([]);
    expect(readGeminiUsage(value)).toEqual({ ...usage, raw: value });
  });

  it('splits the prompt and the candidates by modality when some was image or audio, and reads the same shares back', () => {
    const usage = { input: { total: 1500, cacheRead: 300, cacheWrite: 0, image: 1000, audio: 100 }, output: { total: 1400, reasoning: 100, image: 1290 } };
    const { value } = formatGeminiUsage(usage);
    expect(value.promptTokensDetails).toEqual([{ modality: 'TEXT', tokenCount: 400 }, { modality: 'IMAGE', tokenCount: 1000 }, { modality: 'AUDIO', tokenCount: 100 }]);
    expect(value.candidatesTokensDetails).toEqual([{ modality: 'TEXT', tokenCount: 10 }, { modality: 'IMAGE', tokenCount: 1290 }]);
    const read = readGeminiUsage(value)!;
    expect({ input: read.input, output: read.output }).toEqual({ input: usage.input, output: { ...usage.output, audio: undefined } });
  });

  it('writes no modality split for an all-text count', () => {
    const { value } = formatGeminiUsage({ input: { total: 10, cacheRead: 0, cacheWrite: 0, image: 0 }, output: { total: 5, reasoning: 0, image: 0 } });
    expect(value).toEqual({ promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 });
  });
});

describe('keepEarlierShares', () => {
  const earlier = readGeminiUsage({
    promptTokenCount: 1500, candidatesTokenCount: 1400,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: 200 }, { modality: 'IMAGE', tokenCount: 1000 }, { modality: 'AUDIO', tokenCount: 300 }],
    candidatesTokensDetails: [{ modality: 'TEXT', tokenCount: 110 }, { modality: 'IMAGE', tokenCount: 1290 }],
  });

  it('keeps the shares of a side whose modality list a later report leaves out', () => {
    const metadata = { promptTokenCount: 1500, candidatesTokenCount: 1400 };
    expect(keepEarlierShares(readGeminiUsage(metadata)!, earlier, metadata)).toMatchObject({ input: { audio: 300, image: 1000 }, output: { image: 1290 } });
  });

  it('believes a list that is present, and clamps what it keeps to the new totals', () => {
    const metadata = { promptTokenCount: 1500, candidatesTokenCount: 800, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 1500 }] };
    const kept = keepEarlierShares(readGeminiUsage(metadata)!, earlier, metadata);
    expect(kept.input).not.toHaveProperty('image');
    expect(kept.input).not.toHaveProperty('audio');
    expect(kept.output.image).toBe(800);
  });
});

describe('reportsGeminiOutput', () => {
  it('is true when the report counts candidates or thoughts, false for the prompt alone or anything else', () => {
    expect(reportsGeminiOutput({ promptTokenCount: 5, candidatesTokenCount: 0, totalTokenCount: 5 })).toBe(true);
    expect(reportsGeminiOutput({ promptTokenCount: 5, thoughtsTokenCount: 9, totalTokenCount: 14 })).toBe(true);
    expect(reportsGeminiOutput({ promptTokenCount: 5, totalTokenCount: 5 })).toBe(false);
    expect(reportsGeminiOutput({ promptTokenCount: 5, candidatesTokenCount: null })).toBe(false);
    expect(reportsGeminiOutput(undefined)).toBe(false);
  });
});
