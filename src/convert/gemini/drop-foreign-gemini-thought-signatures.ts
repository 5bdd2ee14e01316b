import type { Converted } from '../../canonical/conversion.js';
import { isReplayableTo } from '../shared/map-opaque-reasoning.js';
import { isRecord } from '../shared/is-record.js';
import { parseGeminiThoughtSignature } from './map-gemini-thought-signature.js';

/** Google's documented stand-in for a function call's missing signature (ai.google.dev/gemini-api/docs/thought-signatures). */
const skipSignatureValidator = 'skip_thought_signature_validator';

/**
 * A Gemini client's body, for a Gemini channel as sent (passthrough), without the thought signatures Gemini
 * did not issue: another vendor's signature or redacted reasoning the gateway handed the client behind a
 * tag (map-gemini-thought-signature.ts), which Gemini would refuse as corrupted. A function call keeps
 * Google's stand-in instead (Gemini 3 refuses a replayed call without one); other parts lose the field.
 * Google's own signature the gateway tagged (`signature:google:X`, or an issuer-less `signature:X`) goes as
 * `X`: Gemini cannot read the tag. Undefined when nothing had to change, so the client's bytes are sent unchanged.
 */
export function dropForeignGeminiThoughtSignatures(body: Record<string, unknown>): Converted<Record<string, unknown>> | undefined {
  if (!Array.isArray(body.contents)) return undefined;
  const warnings: string[] = [];
  let untagged = false;
  const contents = body.contents.map((content: unknown, index) => {
    if (!isRecord(content) || !Array.isArray(content.parts)) return content;
    let changed = false;
    const parts = content.parts.map((part: unknown, partIndex) => {
      if (!isRecord(part) || typeof part.thoughtSignature !== 'string' || part.thoughtSignature === '') return part;
      const opaque = parseGeminiThoughtSignature(part.thoughtSignature);
      if (opaque.kind === 'signature' && isReplayableTo(opaque.issuer, 'google')) {
        if (opaque.value === part.thoughtSignature) return part;
        changed = untagged = true;
        return { ...part, thoughtSignature: opaque.value };
      }
      changed = true;
      warnings.push(`contents[${index}].parts[${partIndex}]: a thought signature issued by ${opaque.issuer ?? 'another vendor'} cannot be verified by Gemini: dropped`);
      const { thoughtSignature: _dropped, ...rest } = part;
      return part.functionCall === undefined ? rest : { ...rest, thoughtSignature: skipSignatureValidator };
    });
    return changed ? { ...content, parts } : content;
  });
  return warnings.length === 0 && !untagged ? undefined : { value: { ...body, contents }, warnings };
}
