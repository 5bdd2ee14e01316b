import type { UpstreamFailure } from '../../routing/classify-upstream-failure.js';
import { errorDocumentFailure } from '../error-document-failure.js';

/**
 * Pure: a Gemini embedding answer that is a 2xx error document (`{"error": {code, message, status}}`, as a
 * chained gateway answers a failure) as the channel's failure, tried on another channel as Gemini's
 * `generateContent` does; undefined for anything else. It delivered nothing, so it costs nothing. An answer
 * carrying its vectors (`embedding`, `embeddings`) is one, whatever else it holds; only a body that mentions
 * `"error"` is parsed (a batch of vectors is large, and never needs it).
 */
export function geminiEmbeddingFailure(answer: Buffer, key: string): UpstreamFailure | undefined {
  if (!answer.includes('"error"')) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(answer.toString('utf8'));
  } catch {
    return undefined;
  }
  if (json === null || typeof json !== 'object') return undefined;
  const { embedding, embeddings } = json as { embedding?: unknown; embeddings?: unknown };
  if ((embedding !== undefined && embedding !== null) || (embeddings !== undefined && embeddings !== null)) return undefined;
  return errorDocumentFailure(json, key);
}
