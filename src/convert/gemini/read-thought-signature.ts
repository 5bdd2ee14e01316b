import type { GeminiPart } from './gemini-wire-schema.js';

/**
 * Google documents two stand-ins a client may send when it has no signature to replay
 * (ai.google.dev/gemini-api/docs/thought-signatures): they sign nothing and are not carried.
 */
const placeholderSignatures = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);

/** A part's thought signature, unless absent, empty or a placeholder. */
export function readThoughtSignature(part: GeminiPart): string | undefined {
  const signature = part.thoughtSignature;
  return signature === undefined || signature === '' || isPlaceholderSignature(signature) ? undefined : signature;
}

/** Whether `signature` is one of Google's stand-ins, which sign nothing. */
export function isPlaceholderSignature(signature: string): boolean {
  return placeholderSignatures.has(signature);
}
