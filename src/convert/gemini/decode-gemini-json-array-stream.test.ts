import { describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import { createGeminiStreamDecoder } from './decode-gemini-stream.js';
import { createGeminiJsonArrayStreamSplitter, GeminiJsonArrayStreamError } from './decode-gemini-json-array-stream.js';
import { readRecordedChunks } from './test-support/read-recorded-chunks.js';

/** A recorded stream as Google writes it without `alt=sse`: pretty-printed elements of one array. */
function toArrayBody(chunks: string[]): string {
  return `[${chunks.map((chunk) => JSON.stringify(JSON.parse(chunk), null, 2)).join('\r\n,')}\r\n]`;
}

function split(body: string | Uint8Array, chunkSize: number): string[] {
  const splitter = createGeminiJsonArrayStreamSplitter();
  const elements: string[] = [];
  for (let offset = 0; offset < body.length; offset += chunkSize) elements.push(...splitter.push(body.slice(offset, offset + chunkSize)));
  elements.push(...splitter.end());
  return elements;
}

describe('createGeminiJsonArrayStreamSplitter', () => {
  it('splits a streamed array into its elements whatever the byte chunking, multibyte characters included', () => {
    const chunks = [...readRecordedChunks('google-text'), JSON.stringify({ candidates: [{ content: { parts: [{ text: 'naïve 日本 "quoted" {brace} [bracket] \\ end' }] } }] })];
    const bytes = Buffer.from(toArrayBody(chunks), 'utf8');
    for (const size of [1, 3, 17, bytes.length]) {
      expect(split(bytes, size).map((element) => JSON.parse(element) as unknown)).toEqual(chunks.map((chunk) => JSON.parse(chunk) as unknown));
    }
  });

  it('hands out each element as soon as it is complete, before the array ends', () => {
    const splitter = createGeminiJsonArrayStreamSplitter();
    expect(splitter.push('[{"a":1}')).toEqual(['{"a":1}']);
    expect(splitter.push('\r\n,{"b":"}')).toEqual([]);
    expect(splitter.push('"}')).toEqual(['{"b":"}"}']);
    expect(splitter.push('\r\n]')).toEqual([]);
    expect(splitter.end()).toEqual([]);
  });

  it('feeds the stream decoder the same parts as the SSE form', () => {
    const chunks = readRecordedChunks('google-stream-tool-call-arguments');
    const decoder = createGeminiStreamDecoder();
    const parts: CanonicalStreamPart[] = [];
    for (const element of split(toArrayBody(chunks), 40)) parts.push(...decoder.push({ event: undefined, data: element, id: undefined }));
    parts.push(...decoder.end());
    const sseDecoder = createGeminiStreamDecoder();
    const expected = [...chunks.flatMap((chunk) => sseDecoder.push({ event: undefined, data: chunk, id: undefined })), ...sseDecoder.end()];
    expect(parts).toEqual(expected);
  });

  it('reads a bare error object as one element', () => {
    expect(split('{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}', 5)).toEqual(['{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}']);
  });

  it('throws when the body ends inside an element, or holds something else', () => {
    const cut = createGeminiJsonArrayStreamSplitter();
    cut.push('[{"a":');
    expect(() => cut.end()).toThrow(GeminiJsonArrayStreamError);
    expect(() => createGeminiJsonArrayStreamSplitter().push('data: {}')).toThrow(GeminiJsonArrayStreamError);
  });

  it('refuses an element larger than the limit', () => {
    const splitter = createGeminiJsonArrayStreamSplitter({ maxElementLength: 10 });
    expect(() => splitter.push('[{"text":"more than ten"')).toThrow('an element exceeds 10 characters');
  });
});
