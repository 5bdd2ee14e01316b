import { describe, expect, it } from 'vitest';
import { mergeGeminiChunks } from './merge-gemini-chunks.js';

const chunk = (parts: Record<string, unknown>[], extra: Record<string, unknown> = {}, candidate: Record<string, unknown> = {}) => ({
  candidates: [{ content: { role: 'model', parts }, index: 0, ...candidate }],
  modelVersion: 'gemini-2.5-flash',
  responseId: 'r1',
  ...extra,
});

describe('mergeGeminiChunks', () => {
  it('joins streamed text into one part per kind, keeps the final finish reason and the last (cumulative) usage', () => {
    const merged = mergeGeminiChunks([
      chunk([{ text: 'Let me', thought: true }], { usageMetadata: { promptTokenCount: 5, totalTokenCount: 6 } }),
      chunk([{ text: ' think', thought: true }]),
      chunk([{ text: 'Hello' }]),
      chunk([{ text: ' world' }]),
      chunk([{ text: '', thoughtSignature: 'sig' }], { usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 9 } }, { finishReason: 'STOP' }),
    ]);
    expect(merged).toEqual({
      candidates: [{ content: { role: 'model', parts: [{ text: 'Let me think', thought: true }, { text: 'Hello world', thoughtSignature: 'sig' }] }, index: 0, finishReason: 'STOP' }],
      modelVersion: 'gemini-2.5-flash',
      responseId: 'r1',
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 9 },
    });
  });

  it('keeps function calls and their signatures as separate parts, and text after a signed part apart from it', () => {
    const merged = mergeGeminiChunks([
      chunk([{ functionCall: { name: 'a', args: {} }, thoughtSignature: 's1' }, { functionCall: { name: 'b', args: { x: 1 } } }]),
      chunk([{ text: 'one', thoughtSignature: 's2' }]),
      chunk([{ text: 'two' }]),
    ]);
    expect((merged.candidates as { content: { parts: unknown[] } }[])[0]?.content.parts).toEqual([
      { functionCall: { name: 'a', args: {} }, thoughtSignature: 's1' },
      { functionCall: { name: 'b', args: { x: 1 } } },
      { text: 'one', thoughtSignature: 's2' },
      { text: 'two' },
    ]);
  });

  it('carries what the gateway does not model: grounding, safety ratings, prompt feedback, citations added up', () => {
    const merged = mergeGeminiChunks([
      chunk([{ text: 'A' }], { promptFeedback: { safetyRatings: [] } }, { citationMetadata: { citationSources: [{ uri: 'u1' }] } }),
      chunk([{ text: 'B' }], {}, { citationMetadata: { citationSources: [{ uri: 'u2' }] }, safetyRatings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' }] }),
      chunk([], {}, { groundingMetadata: { webSearchQueries: ['q'] }, finishReason: 'STOP' }),
    ]);
    const [candidate] = merged.candidates as Record<string, unknown>[];
    expect(merged.promptFeedback).toEqual({ safetyRatings: [] });
    expect(candidate).toMatchObject({
      content: { parts: [{ text: 'AB' }] },
      citationMetadata: { citationSources: [{ uri: 'u1' }, { uri: 'u2' }] },
      safetyRatings: [{ category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' }],
      groundingMetadata: { webSearchQueries: ['q'] },
      finishReason: 'STOP',
    });
  });

  it('keeps several candidates apart by index, and a blocked prompt (no candidates) as its feedback alone', () => {
    const two = mergeGeminiChunks([
      { candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, index: 0 }, { content: { role: 'model', parts: [{ text: 'y' }] }, index: 1 }] },
      { candidates: [{ content: { role: 'model', parts: [{ text: 'z' }] }, index: 1, finishReason: 'STOP' }] },
    ]);
    expect((two.candidates as { content: { parts: unknown[] } }[]).map((candidate) => candidate.content.parts)).toEqual([[{ text: 'x' }], [{ text: 'yz' }]]);
    expect(mergeGeminiChunks([{ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 12 } }])).toEqual({
      promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
      usageMetadata: { promptTokenCount: 12 },
    });
  });
});
