import { describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import { createSseDecoder } from '../../streaming/decode-sse.js';
import { expectGolden, toJsonLines } from '../test-support/expect-golden.js';
import { createGeminiStreamDecoder } from './decode-gemini-stream.js';
import { readRecordedChunks, recordedStreamNames, toSseBody } from './test-support/read-recorded-chunks.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

/** Feeds an SSE body to the decoder in `chunkSize`-byte pieces, as the network would. */
function decodeBody(body: string, chunkSize: number) {
  const decoder = createGeminiStreamDecoder();
  const parts: CanonicalStreamPart[] = [];
  const progress: number[] = [];
  const sse = createSseDecoder({ maxEventBytes: 1 << 20, onEvent: (event) => parts.push(...decoder.push(event)) });
  const bytes = Buffer.from(body, 'utf8');
  for (let offset = 0; offset < bytes.length; offset += chunkSize) {
    sse.push(bytes.subarray(offset, offset + chunkSize));
    progress.push(parts.length);
  }
  sse.end();
  parts.push(...decoder.end());
  return { parts, progress, warnings: decoder.warnings };
}

function decodeChunks(chunks: unknown[]) {
  return decodeBody(toSseBody(chunks.map((chunk) => JSON.stringify(chunk))), 64);
}

describe('createGeminiStreamDecoder', () => {
  for (const name of recordedStreamNames) {
    it(`decodes the recorded ${name} stream, fed in 7-byte pieces, into the golden parts`, () => {
      const { parts, warnings } = decodeBody(toSseBody(readRecordedChunks(name)), 7);
      const actual = toJsonLines(parts);
      expectGolden(goldenFolder, `decode-${name}.parts.jsonl`, actual);
      expect(warnings).toEqual([]);
    });
  }

  it('decodes the same parts whatever the chunking', () => {
    const body = toSseBody(readRecordedChunks('google-stream-tool-call-arguments'));
    expect(decodeBody(body, 1).parts).toEqual(decodeBody(body, body.length).parts);
  });

  it('forwards streamed tool-call arguments as they arrive, before the stream ends', () => {
    const chunks = readRecordedChunks('google-stream-tool-call-arguments');
    const decoder = createGeminiStreamDecoder();
    decoder.push({ event: undefined, data: chunks[0] ?? '', id: undefined });
    const second = decoder.push({ event: undefined, data: chunks[1] ?? '', id: undefined });
    expect(second).toEqual([{ type: 'tool-call-delta', index: 0, argumentsDelta: '{"location":"Boston' }]);
  });

  it('emits start first and finish last exactly once, with usage from the last chunk', () => {
    const { parts } = decodeBody(toSseBody(readRecordedChunks('google-cache-usage')), 5);
    expect(parts.filter((part) => part.type === 'start')).toHaveLength(1);
    expect(parts[0]?.type).toBe('start');
    const finish = parts.at(-1);
    expect(finish?.type).toBe('finish');
    // The usage-only chunk after finishReason (as in vercel/ai's google-usage-raw-live recording) is the final word.
    expect(finish?.type === 'finish' && finish.usage).toMatchObject({ input: { total: 2112, cacheRead: 2048, cacheWrite: 0 }, output: { total: 78, reasoning: 65 } });
  });

  it('bills grounding searches with the usage of the chunk that carries them, so an answer cut before its finish still bills them', () => {
    const decoder = createGeminiStreamDecoder();
    const chunk = (extra: Record<string, unknown>) => ({ event: undefined, id: undefined, data: JSON.stringify({ modelVersion: 'gemini-3-flash-preview', responseId: 'r1', ...extra }) });
    decoder.push(chunk({ candidates: [{ content: { role: 'model', parts: [{ text: 'It is' }] } }] }));
    const parts = decoder.push(chunk({ candidates: [{ content: { role: 'model', parts: [{ text: ' sunny' }] }, groundingMetadata: { webSearchQueries: ['weather', '', 'forecast'] } }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 3, totalTokenCount: 13 } }));
    expect(parts.find((part) => part.type === 'usage')).toMatchObject({ usage: { input: { total: 10 }, output: { total: 3 }, webSearches: 2 } });
  });

  it('keeps function-call ids Gemini sends and makes unique stable ones when it sends none', () => {
    const parallel = decodeBody(toSseBody(readRecordedChunks('google-parallel-tool-calls')), 64).parts;
    expect(parallel.filter((part) => part.type === 'tool-call-start').map((part) => part.type === 'tool-call-start' && part.id)).toEqual(['lpndqlku', 'm6rogicj']);
    const generated = decodeBody(toSseBody(readRecordedChunks('google-tool-call')), 64).parts;
    expect(generated.find((part) => part.type === 'tool-call-start')).toMatchObject({ id: 'call_b36LacjwM668nsEP2tbsgQQ_0' });
    const idless = [{ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'a', args: {} } }, { functionCall: { name: 'b' } }] } }] }];
    const withoutResponseId = decodeChunks(idless).parts;
    const starts = withoutResponseId.filter((part) => part.type === 'tool-call-start');
    expect(starts).toEqual([
      { type: 'tool-call-start', index: 0, id: expect.stringMatching(/^call_[a-z0-9]{8}_0$/), name: 'a' },
      { type: 'tool-call-start', index: 1, id: expect.stringMatching(/^call_[a-z0-9]{8}_1$/), name: 'b' },
    ]);
    expect(withoutResponseId).toContainEqual({ type: 'tool-call-delta', index: 1, argumentsDelta: '{}' });
    // Without a responseId, a per-answer nonce keeps the next answer's ids apart (one history holds both).
    const nextAnswer = decodeChunks(idless).parts.filter((part) => part.type === 'tool-call-start');
    expect(nextAnswer.map((part) => part.type === 'tool-call-start' && part.id)).not.toContain(starts[0]?.type === 'tool-call-start' && starts[0].id);
  });

  it('reports a function call as tool_calls although Gemini says STOP', () => {
    const { parts } = decodeBody(toSseBody(readRecordedChunks('google-tool-call')), 64);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'tool_calls', raw: 'STOP' } });
  });

  it('places a thought part signature after its reasoning and a text part signature before its text', () => {
    const { parts } = decodeChunks([
      { candidates: [{ content: { role: 'model', parts: [{ text: 'plan', thought: true, thoughtSignature: 'sig-thought' }] } }] },
      { candidates: [{ content: { role: 'model', parts: [{ text: 'answer', thoughtSignature: 'sig-text' }] }, finishReason: 'STOP' }] },
    ]);
    expect(parts.slice(1, 5)).toEqual([
      { type: 'reasoning-delta', text: 'plan' },
      { type: 'reasoning-signature', signature: 'sig-thought', issuer: 'google' },
      { type: 'reasoning-signature', signature: 'sig-text', issuer: 'google' },
      { type: 'text-delta', text: 'answer' },
    ]);
  });

  it('turns a blocked prompt into a content_filter finish with the block reason as raw', () => {
    const { parts } = decodeChunks([{ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 17, totalTokenCount: 17 } }]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'content_filter', raw: 'PROHIBITED_CONTENT' } });
  });

  it('turns an error event into an error part and finishes with error at the end', () => {
    const { parts } = decodeChunks([{ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }]);
    expect(parts).toEqual([
      { type: 'start', id: '', model: '', created: 0 },
      { type: 'error', message: 'The model is overloaded.', code: 'UNAVAILABLE' },
      { type: 'finish', finishReason: { unified: 'error', raw: undefined }, usage: undefined },
    ]);
  });

  it('finishes with error, not a stop, when an error event follows some text', () => {
    const { parts } = decodeChunks([
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Partial' }] } }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1, totalTokenCount: 6 } },
      { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } },
    ]);
    expect(parts.slice(-2)).toEqual([
      { type: 'error', message: 'The model is overloaded.', code: 'UNAVAILABLE' },
      { type: 'finish', finishReason: { unified: 'error', raw: undefined }, usage: expect.objectContaining({ input: expect.objectContaining({ total: 5 }) }) },
    ]);
  });

  it('reads a prompt-only report before the finish as the input, never as a final usage of 0 output', () => {
    const prompt = { promptTokenCount: 1000, totalTokenCount: 1000 };
    const text = (value: string) => ({ candidates: [{ content: { role: 'model', parts: [{ text: value }] } }], usageMetadata: prompt });
    const { parts } = decodeChunks([text('Once'), text(' upon'), { error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }]);
    // Said once (the same input again is not repeated); no usage part, and the failed finish carries none.
    expect(parts.filter((part) => part.type === 'input-usage')).toEqual([{ type: 'input-usage', input: { total: 1000, cacheRead: 0, cacheWrite: 0 } }]);
    expect(parts.some((part) => part.type === 'usage')).toBe(false);
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: { unified: 'error', raw: undefined }, usage: undefined });
  });

  it('takes a prompt-only report on the finish chunk, or after it, of an empty answer as the final usage', () => {
    const prompt = { promptTokenCount: 12, totalTokenCount: 12 };
    const onFinish = decodeChunks([{ candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP' }], usageMetadata: prompt }]).parts;
    const afterFinish = decodeChunks([{ candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'SAFETY' }] }, { usageMetadata: prompt }]).parts;
    for (const parts of [onFinish, afterFinish]) {
      expect(parts.some((part) => part.type === 'input-usage')).toBe(false);
      expect(parts.at(-1)).toMatchObject({ type: 'finish', usage: { input: { total: 12 }, output: { total: 0 } } });
    }
  });

  it('reads a final report without candidatesTokenCount after text as the input, its output left to the local count', () => {
    const prompt = { promptTokenCount: 12, totalTokenCount: 12 };
    const text = (value: string, extra: Record<string, unknown> = {}) => ({ candidates: [{ content: { role: 'model', parts: [{ text: value }] }, ...extra }] });
    const onFinish = decodeChunks([text('Hello'), { ...text(' there', { finishReason: 'STOP' }), usageMetadata: prompt }]).parts;
    const afterFinish = decodeChunks([text('Hello', { finishReason: 'STOP' }), { usageMetadata: prompt }]).parts;
    // An earlier report that counted some of the output is replaced: its count is not the answer's.
    const afterCounted = decodeChunks([{ ...text('Hello'), usageMetadata: { ...prompt, candidatesTokenCount: 1 } }, { ...text(' there', { finishReason: 'STOP' }), usageMetadata: { ...prompt, candidatesTokenCount: 0 } }]).parts;
    for (const parts of [onFinish, afterFinish, afterCounted]) {
      expect(parts.filter((part) => part.type === 'input-usage').at(-1)).toEqual({ type: 'input-usage', input: { total: 12, cacheRead: 0, cacheWrite: 0 } });
      expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'stop' }, usage: undefined });
    }
  });

  it('keeps the thoughts a final report counted when it leaves out the candidates after text', () => {
    const { parts } = decodeChunks([
      { candidates: [{ content: { role: 'model', parts: [{ text: 'hm', thought: true }] } }], usageMetadata: { promptTokenCount: 11, thoughtsTokenCount: 150, totalTokenCount: 161 } },
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Answer.' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 11, thoughtsTokenCount: 198, totalTokenCount: 209 } },
    ]);
    expect(parts.filter((part) => part.type === 'input-usage')).toEqual([{ type: 'input-usage', input: { total: 11, cacheRead: 0, cacheWrite: 0 }, reasoning: 198 }]);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', usage: undefined });
  });

  it('takes a thoughts-only final report of an answer that only thought as its usage', () => {
    const { parts } = decodeChunks([{ candidates: [{ content: { role: 'model', parts: [{ text: 'hm', thought: true }] }, finishReason: 'MAX_TOKENS' }], usageMetadata: { promptTokenCount: 11, thoughtsTokenCount: 198, totalTokenCount: 209 } }]);
    expect(parts.some((part) => part.type === 'input-usage')).toBe(false);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', usage: { input: { total: 11 }, output: { total: 198, reasoning: 198 } } });
  });

  it('takes a report with a thoughts count as usage before the finish, as thinking streams send it', () => {
    const { parts } = decodeChunks([{ candidates: [{ content: { role: 'model', parts: [{ text: 'hm', thought: true }] } }], usageMetadata: { promptTokenCount: 11, thoughtsTokenCount: 198, totalTokenCount: 209 } }]);
    expect(parts.find((part) => part.type === 'usage')).toMatchObject({ usage: { input: { total: 11 }, output: { total: 198, reasoning: 198 } } });
  });

  it('carries the first candidate and gives the text of the others to billing alone', () => {
    const { parts } = decodeChunks([
      {
        candidates: [
          { content: { role: 'model', parts: [{ text: 'first' }] }, index: 0 },
          { content: { role: 'model', parts: [{ text: 'second' }] }, index: 1 },
        ],
      },
    ]);
    expect(parts.filter((part) => part.type === 'text-delta' || part.type === 'uncarried-output')).toEqual([
      { type: 'uncarried-output', text: 'second' },
      { type: 'text-delta', text: 'first' },
    ]);
  });

  it('closes a streamed call cut off by the end of the stream, and says so', () => {
    const decoder = createGeminiStreamDecoder();
    const chunks = readRecordedChunks('google-stream-tool-call-arguments');
    for (const chunk of chunks.slice(0, 2)) decoder.push({ event: undefined, data: chunk, id: undefined });
    expect(decoder.end().slice(0, 2)).toEqual([
      { type: 'tool-call-delta', index: 0, argumentsDelta: '"}' },
      { type: 'tool-call-end', index: 0 },
    ]);
    expect(decoder.warnings).toEqual(['the stream ended inside a streamed function call; its arguments were closed']);
  });

  it('skips an event that is not JSON with a warning', () => {
    const decoder = createGeminiStreamDecoder();
    expect(decoder.push({ event: undefined, data: 'not json', id: undefined })).toEqual([]);
    expect(decoder.warnings).toEqual(['an upstream event was not JSON and was skipped']);
  });

  it('warns about generated media instead of dropping it silently', () => {
    const { warnings } = decodeChunks([{ candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }, finishReason: 'STOP' }] }]);
    expect(warnings).toEqual(['generated media (inlineData/fileData) has no canonical form and was dropped']);
  });
});
