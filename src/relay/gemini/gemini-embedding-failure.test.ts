import { describe, expect, it } from 'vitest';
import { geminiEmbeddingFailure } from './gemini-embedding-failure.js';

const key = 'AIza-channel-secret';
const bytes = (json: unknown) => Buffer.from(JSON.stringify(json));

describe('geminiEmbeddingFailure', () => {
  it("is a 502 naming the upstream's message for Google's error envelope answered 2xx", () => {
    expect(geminiEmbeddingFailure(bytes({ error: { code: 429, message: `Resource has been exhausted ${key}`, status: 'RESOURCE_EXHAUSTED' } }), key)).toMatchObject({
      kind: 'status',
      status: 502,
      message: 'the upstream answered 2xx with an error document: Resource has been exhausted ***',
    });
  });

  it('is undefined for vectors, one or a batch, even beside an error field', () => {
    expect(geminiEmbeddingFailure(bytes({ embedding: { values: [0.1, 0.2] } }), key)).toBeUndefined();
    expect(geminiEmbeddingFailure(bytes({ embeddings: [{ values: [0.1] }] }), key)).toBeUndefined();
    expect(geminiEmbeddingFailure(bytes({ embedding: { values: [0.1] }, error: { message: 'partial' } }), key)).toBeUndefined();
  });

  it('is undefined for what is not JSON, or not an error document', () => {
    expect(geminiEmbeddingFailure(Buffer.from('not json "error"'), key)).toBeUndefined();
    expect(geminiEmbeddingFailure(bytes({ error: 'a string, not an error object' }), key)).toBeUndefined();
    expect(geminiEmbeddingFailure(bytes([{ error: { message: 'x' } }]), key)).toBeUndefined();
  });
});
