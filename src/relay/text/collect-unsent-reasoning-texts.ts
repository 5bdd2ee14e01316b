import { isRecord } from '../../convert/shared/is-record.js';
import { readOpenaiResponsesReasoningText } from '../../convert/openai-responses/parse-openai-responses-output-item.js';
import { openaiResponsesReasoningItemSchema } from '../../convert/openai-responses/openai-responses-wire-schema.js';
import type { UpstreamTextStyle } from '../../providers/provider-request.js';

/**
 * Pure: the reasoning texts of the client's body that the body sent to a same-style channel no longer
 * carries. The passthrough cleaning (without-foreign-reasoning.ts) drops another vendor's reasoning whole,
 * text and all — an Anthropic thinking block (or one without a signature), a Responses reasoning item —
 * and the prompt's local count holds that text (collect-canonical-prompt-text.ts), as it holds the dropped
 * signature (estimate-sent-opaque-tokens.ts): both are taken off when the upstream reports no usage. Each
 * text the sent body still carries cancels one equal text of the client's, so only what was dropped is
 * returned (a kept block whose text a dropped one repeats is still billed).
 */
export function collectUnsentReasoningTexts(style: UpstreamTextStyle, clientBody: Record<string, unknown>, sentBody: Record<string, unknown>): string[] {
  const sent = new Map<string, number>();
  for (const text of reasoningTextsOf(style, sentBody)) sent.set(text, (sent.get(text) ?? 0) + 1);
  return reasoningTextsOf(style, clientBody).filter((text) => {
    const kept = sent.get(text) ?? 0;
    if (kept === 0) return true;
    sent.set(text, kept - 1);
    return false;
  });
}

/** The reasoning texts a body carries, as the prompt's collector reads them (empty ones left out). */
function reasoningTextsOf(style: UpstreamTextStyle, body: Record<string, unknown>): string[] {
  const texts: string[] = [];
  switch (style) {
    case 'anthropic-messages':
      for (const message of listOf(body.messages)) {
        if (message.role !== 'assistant') continue;
        for (const block of listOf(message.content)) if (block.type === 'thinking' && typeof block.thinking === 'string') texts.push(block.thinking);
      }
      break;
    case 'openai-responses':
      for (const item of listOf(body.input)) {
        if (item.type !== 'reasoning') continue;
        const parsed = openaiResponsesReasoningItemSchema.safeParse(item);
        if (parsed.success) texts.push(readOpenaiResponsesReasoningText(parsed.data));
      }
      break;
    case 'gemini':
    case 'openai-chat':
      // Their cleaning replaces or removes signatures only: every text goes as the client sent it.
      break;
    default: {
      const unhandled: never = style;
      throw new Error(`unknown text style ${String(unhandled)}`);
    }
  }
  return texts.filter((text) => text !== '');
}

function listOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}
