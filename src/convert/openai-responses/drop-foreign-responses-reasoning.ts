import type { Converted } from '../../canonical/conversion.js';
import { isRecord } from '../shared/is-record.js';
import { parseOpenaiResponsesEncryptedContent } from './map-openai-responses-encrypted-content.js';

/**
 * A Responses client's body, for a Responses channel as sent (passthrough), without the reasoning items
 * whose `encrypted_content` OpenAI did not encrypt: another vendor's signature or redacted thinking the
 * gateway handed the client behind a tag (map-openai-responses-encrypted-content.ts), which OpenAI refuses.
 * Undefined when nothing had to go, so the client's bytes are sent unchanged.
 */
export function dropForeignResponsesReasoning(body: Record<string, unknown>): Converted<Record<string, unknown>> | undefined {
  if (!Array.isArray(body.input)) return undefined;
  const warnings: string[] = [];
  const input = body.input.filter((item: unknown, index) => {
    if (!isRecord(item) || item.type !== 'reasoning' || typeof item.encrypted_content !== 'string' || item.encrypted_content === '') return true;
    const opaque = parseOpenaiResponsesEncryptedContent(item.encrypted_content);
    if (opaque.kind === 'redacted' && opaque.issuer === 'openai') return true;
    warnings.push(`input[${index}]: reasoning ${opaque.kind === 'signature' ? 'signed' : 'encrypted'} by ${opaque.issuer ?? 'another vendor'} cannot be verified by OpenAI: dropped`);
    return false;
  });
  return warnings.length === 0 ? undefined : { value: { ...body, input }, warnings };
}
