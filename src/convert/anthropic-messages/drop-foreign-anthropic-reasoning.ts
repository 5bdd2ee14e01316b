import type { Converted } from '../../canonical/conversion.js';
import { isRecord } from '../shared/is-record.js';
import { finalToolTurnLacksThinking } from './final-tool-turn-lacks-thinking.js';
import type { AnthropicWireMessage } from './format-anthropic-messages-content.js';
import { parseAnthropicRedactedData, parseAnthropicThinkingSignature } from './map-anthropic-opaque-reasoning.js';

/**
 * An Anthropic client's body, for an Anthropic channel as sent (passthrough), without the thinking blocks
 * whose signature or redacted data another vendor issued (tagged by the gateway when a converted upstream
 * answered that turn: map-anthropic-opaque-reasoning.ts), or that have no signature at all (another
 * vendor's unsigned reasoning): Anthropic refuses them ("Invalid signature in thinking block"). When the assistant turn whose tool calls the request answers is left without thinking,
 * thinking is turned off for this request, as a converted request is (final-tool-turn-lacks-thinking.ts).
 * Anthropic's own signature or redacted data the gateway tagged (`signature:anthropic:X`,
 * `redacted:anthropic:X`, or without an issuer) goes as `X`: Anthropic cannot read the tag; one that carries
 * the thinking it signs (`thinking:anthropic:X:<base64 text>`) goes as `X` with that text as the block's.
 * Undefined when nothing had to change, so the client's bytes are sent unchanged.
 */
export function dropForeignAnthropicReasoning(body: Record<string, unknown>): Converted<Record<string, unknown>> | undefined {
  if (!Array.isArray(body.messages)) return undefined;
  const warnings: string[] = [];
  let untagged = false;
  const messages = body.messages.map((message: unknown, index) => {
    if (!isRecord(message) || message.role !== 'assistant' || !Array.isArray(message.content)) return message;
    let changed = false;
    const content = message.content.flatMap((block: unknown, blockIndex) => {
      const path = `messages.${index}.content.${blockIndex}`;
      // A thinking block without a signature: the gateway gave it for another vendor's unsigned reasoning (a
      // Responses summary); Anthropic refuses it as it does a foreign one.
      if (isRecord(block) && block.type === 'thinking' && (typeof block.signature !== 'string' || block.signature === '')) {
        warnings.push(`${path}: reasoning without a signature cannot be replayed to Anthropic: dropped`);
        changed = true;
        return [];
      }
      const issuer = foreignIssuerOf(block);
      if (issuer === undefined) {
        const plain = withoutOwnTag(block);
        if (plain !== block) changed = untagged = true;
        return [plain];
      }
      warnings.push(`${path}: reasoning signed by ${issuer} cannot be verified by Anthropic: dropped`);
      changed = true;
      return [];
    });
    return changed ? { ...message, content } : message;
  });
  if (warnings.length === 0 && !untagged) return undefined;
  const cleaned: Record<string, unknown> = { ...body, messages };
  const wire = messages.filter(isRecord).map((message) => ({ role: message.role, content: Array.isArray(message.content) ? message.content : [] }) as AnthropicWireMessage);
  if (isRecord(body.thinking) && body.thinking.type === 'enabled' && finalToolTurnLacksThinking(wire)) {
    delete cleaned.thinking;
    warnings.push('thinking not sent: the assistant turn whose tool calls this request answers has no signed thinking to replay, which Anthropic requires with thinking on');
  }
  return { value: cleaned, warnings };
}

/**
 * A thinking block whose signature, or a redacted_thinking block whose data, is Anthropic's (or of no known
 * issuer) behind the gateway's tag, with the value alone; any other block as it is.
 */
function withoutOwnTag(block: unknown): unknown {
  if (!isRecord(block)) return block;
  if (block.type === 'thinking' && typeof block.signature === 'string') {
    const opaque = parseAnthropicThinkingSignature(block.signature);
    if (opaque.kind !== 'signature' || opaque.value === block.signature) return block;
    // A signature that carries the thinking it signs (`thinking:anthropic:…`) restores that text, which Anthropic checks.
    return { ...block, ...(opaque.thinking === undefined ? {} : { thinking: opaque.thinking }), signature: opaque.value };
  }
  if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
    const opaque = parseAnthropicRedactedData(block.data);
    return opaque.kind === 'redacted' && opaque.value !== block.data ? { ...block, data: opaque.value } : block;
  }
  return block;
}

/** The issuer of a thinking block's signature or redacted data when another vendor issued it. */
function foreignIssuerOf(block: unknown): string | undefined {
  if (!isRecord(block)) return undefined;
  let opaque;
  if (block.type === 'thinking' && typeof block.signature === 'string' && block.signature !== '') opaque = parseAnthropicThinkingSignature(block.signature);
  else if (block.type === 'redacted_thinking' && typeof block.data === 'string') opaque = parseAnthropicRedactedData(block.data);
  if (opaque === undefined || opaque.issuer === undefined || opaque.issuer === 'anthropic') return undefined;
  return opaque.issuer;
}
