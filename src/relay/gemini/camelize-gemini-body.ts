import { camelizeGeminiKeys, GeminiSpellingConflict } from '../../convert/gemini/camelize-gemini-keys.js';
import { GatewayError } from '../../errors/gateway-error.js';

/**
 * A Gemini body with its proto-JSON field names read as camelCase (`inline_data` is `inlineData`), for the
 * actions that read a body without the generateContent parser: `:countTokens` (its `generateContentRequest`
 * wrapper) and the embedding actions. A field under both spellings in one object is the 400 it is on
 * `:generateContent`, naming both: the gateway would read one, and the upstream given the client's bytes
 * might read the other.
 */
export function camelizeGeminiBody(body: Record<string, unknown>): Record<string, unknown> {
  try {
    return camelizeGeminiKeys(body) as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof GeminiSpellingConflict)) throw error;
    throw new GatewayError('invalid_request', error.message, { param: error.field });
  }
}
