import { describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import { createGeminiJsonArrayStreamSplitter } from './decode-gemini-json-array-stream.js';
import { createGeminiStreamEncoder } from './encode-gemini-stream.js';
import { encodeGeminiJsonArrayStream } from './encode-gemini-json-array-stream.js';
import { fixedContext } from './test-support/fixed-context.js';

const parts: CanonicalStreamPart[] = [
  { type: 'start', id: 'r1', model: 'm', created: 0 },
  { type: 'text-delta', text: 'Hello' },
  { type: 'text-delta', text: ' there' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: { input: { total: 3, cacheRead: 0, cacheWrite: 0 }, output: { total: 2, reasoning: 0 } } },
];

describe('encodeGeminiJsonArrayStream', () => {
  it('writes the SSE encoder events as one JSON array, element by element', () => {
    const sse = createGeminiStreamEncoder(fixedContext());
    const expected: unknown[] = [];
    for (const part of parts) {
      const frame = sse.encode(part);
      if (frame !== '') expected.push(JSON.parse(frame.slice('data: '.length)));
    }
    const encoder = encodeGeminiJsonArrayStream(createGeminiStreamEncoder(fixedContext()));
    const pieces = parts.map((part) => encoder.encode(part));
    expect(pieces[0]).toBe('');
    expect(pieces[1]?.startsWith('[{')).toBe(true);
    expect(pieces[2]?.startsWith('\r\n,{')).toBe(true);
    const body = pieces.join('') + encoder.end();
    expect(body.endsWith('\r\n]')).toBe(true);
    expect(JSON.parse(body)).toEqual(expected);
    const splitter = createGeminiJsonArrayStreamSplitter();
    expect([...splitter.push(body), ...splitter.end()]).toHaveLength(3);
  });

  it('writes an empty array when nothing was encoded', () => {
    const encoder = encodeGeminiJsonArrayStream(createGeminiStreamEncoder(fixedContext()));
    expect(encoder.end()).toBe('[]');
    expect(encoder.end()).toBe('');
  });

  it('shares the warnings of the encoder it wraps', () => {
    const encoder = encodeGeminiJsonArrayStream(createGeminiStreamEncoder(fixedContext()));
    encoder.encode({ type: 'reasoning-redacted', data: 'x' });
    expect(encoder.warnings).toEqual(['redacted/encrypted reasoning has no Gemini form and was dropped']);
  });
});
