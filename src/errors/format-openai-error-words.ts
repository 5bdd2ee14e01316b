import { mapErrorKind } from './map-error-kind.js';
import { openaiErrorCodes, readErrorKind } from './read-error-kind.js';

/**
 * The gateway's own codes for an upstream stream it could not read to its end (an interruption, a malformed
 * chunk): kept as they are, with the `upstream_error` type of the gateway's other upstream failures.
 */
const gatewayStreamCodes: ReadonlySet<string> = new Set(['stream_interrupted', 'invalid_chunk']);

/**
 * Pure: an upstream error's code (any vendor's) as the `type` and `code` of an OpenAI error object. An
 * OpenAI code (from a converted Responses or Chat upstream) is kept; another vendor's is replaced by
 * OpenAI's word for its kind (Anthropic's `overloaded_error` → `server_error` / `server_is_overloaded`).
 */
export function formatOpenaiErrorWords(code: string | undefined, status?: number): { type: string; code: string | null } {
  if (code !== undefined && gatewayStreamCodes.has(code)) return { type: 'upstream_error', code };
  const words = mapErrorKind(readErrorKind(code, status)).openai;
  return { type: words.type, code: code !== undefined && openaiErrorCodes.has(code) ? code : words.code };
}
