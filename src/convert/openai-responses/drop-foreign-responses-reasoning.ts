import type { Converted } from '../../canonical/conversion.js';
import { isRecord } from '../shared/is-record.js';
import { parseOpenaiResponsesEncryptedContent } from './map-openai-responses-encrypted-content.js';

/**
 * A Responses client's body, for a Responses channel as sent (passthrough), without the reasoning items
 * whose `encrypted_content` OpenAI did not encrypt: another vendor's signature or redacted thinking the
 * gateway handed the client behind a tag (map-openai-responses-encrypted-content.ts), which OpenAI refuses.
 * OpenAI's own encrypted content the gateway tagged (`redacted:openai:X`) goes as `X`: OpenAI cannot read the
 * tag. Undefined when nothing had to change, so the client's bytes are sent unchanged.
 */
export function dropForeignResponsesReasoning(body: Record<string, unknown>): Converted<Record<string, unknown>> | undefined {
  if (!Array.isArray(body.input)) return undefined;
  const warnings: string[] = [];
  let untagged = false;
  const input = body.input.flatMap((item: unknown, index) => {
    if (!isRecord(item) || item.type !== 'reasoning' || typeof item.encrypted_content !== 'string' || item.encrypted_content === '') return [item];
    const opaque = parseOpenaiResponsesEncryptedContent(item.encrypted_content);
    if (opaque.kind === 'redacted' && opaque.issuer === 'openai') {
      if (opaque.value === item.encrypted_content) return [item];
      untagged = true;
      return [{ ...item, encrypted_content: opaque.value }];
    }
    warnings.push(`input[${index}]: reasoning ${opaque.kind === 'signature' ? 'signed' : 'encrypted'} by ${opaque.issuer ?? 'another vendor'} cannot be verified by OpenAI: dropped`);
    return [];
  });
  return warnings.length === 0 && !untagged ? undefined : { value: { ...body, input }, warnings };
}
