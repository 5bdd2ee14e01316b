import { mapErrorKind } from './map-error-kind.js';
import { gatewayStreamCodes, openaiErrorCodes, readErrorKind } from './read-error-kind.js';

/** Codes an OpenAI client is handed as they are: OpenAI's own, and the gateway's for a stream it could not read to its end. */
const keptCodes: ReadonlySet<string> = new Set([...openaiErrorCodes.keys(), ...gatewayStreamCodes]);

/**
 * Pure: an upstream error's code (any vendor's) as the `type` and `code` of an OpenAI error object. An
 * OpenAI code (from a converted Responses or Chat upstream) is kept, as are the gateway's own stream codes
 * (`stream_interrupted`, `invalid_chunk`, with the `server_error` type of a failed upstream); another
 * vendor's is replaced by OpenAI's word for its kind (Anthropic's `overloaded_error` → `server_error` /
 * `server_is_overloaded`).
 */
export function formatOpenaiErrorWords(code: string | undefined, status?: number): { type: string; code: string | null } {
  const words = mapErrorKind(readErrorKind(code, status)).openai;
  return { type: words.type, code: code !== undefined && keptCodes.has(code) ? code : words.code };
}
