import type { CanonicalAssistantPart, CanonicalReasoningPart, CanonicalTextPart } from '../../canonical/canonical-request.js';
import type { ConversionContext, Converted } from '../../canonical/conversion.js';
import { unwrapCustomToolInput } from './decode-custom-tool-input.js';
import { formatOpenaiResponsesEncryptedContent } from './map-openai-responses-encrypted-content.js';
import { readCustomToolNames } from './read-custom-tool-names.js';

type WireItem = Record<string, unknown>;
type ItemStatus = 'completed' | 'incomplete';

export function formatOutputTextPart(text: string): WireItem {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

/** A message item: one `output_text` per text, a `refusal` part for a text marked refusal. */
export function formatMessageItem(id: string, status: ItemStatus | 'in_progress', texts: (string | CanonicalTextPart)[]): WireItem {
  const content = texts.map((text) => (typeof text === 'string' ? formatOutputTextPart(text) : text.refusal === true ? { type: 'refusal', refusal: text.text } : formatOutputTextPart(text.text)));
  return { id, type: 'message', status, content, role: 'assistant' };
}

export function formatFunctionCallItem(id: string, status: ItemStatus | 'in_progress', call: { id: string; name: string; arguments: string }): WireItem {
  return { id, type: 'function_call', status, arguments: call.arguments, call_id: call.id, name: call.name };
}

export function formatCustomToolCallItem(id: string, status: ItemStatus | 'in_progress', call: { id: string; name: string; input: string }): WireItem {
  return { id, type: 'custom_tool_call', status, call_id: call.id, name: call.name, input: call.input };
}

export function formatReasoningItem(id: string, text: string, encryptedContent: string | undefined): WireItem {
  return {
    id,
    type: 'reasoning',
    ...(encryptedContent === undefined ? {} : { encrypted_content: encryptedContent }),
    summary: text === '' ? [] : [{ type: 'summary_text', text }],
  };
}

/** Opaque data alone right after reasoning text without any is that reasoning's (a stream collected part by part splits them). */
function belongsToPrevious(part: CanonicalReasoningPart, previous: CanonicalAssistantPart | undefined): previous is CanonicalReasoningPart {
  return part.text === '' && previous?.type === 'reasoning' && previous.signature === undefined && previous.redactedData === undefined;
}

function withoutText(part: CanonicalReasoningPart): Partial<CanonicalReasoningPart> {
  const { signature, redactedData, issuer } = part;
  return { ...(signature === undefined ? {} : { signature }), ...(redactedData === undefined ? {} : { redactedData }), ...(issuer === undefined ? {} : { issuer }) };
}

/**
 * Canonical assistant content → Responses output items: runs of text become one `message` (one `output_text`
 * per part), reasoning a `reasoning` item with its text as summary, tool calls `function_call` items (a call
 * of one of the client's custom tools a `custom_tool_call` with the text of its `input` argument). Item ids
 * are fresh; the last item of an incomplete response is marked incomplete, as OpenAI does (past a trailing
 * signature-only reasoning item: lastItemWithContent).
 */
export function formatOpenaiResponsesOutput(content: CanonicalAssistantPart[], context: ConversionContext, incomplete: boolean): Converted<WireItem[]> {
  const warnings: string[] = [];
  const merged: CanonicalAssistantPart[] = [];
  for (const part of content) {
    const previous = merged[merged.length - 1];
    if (part.type === 'reasoning' && belongsToPrevious(part, previous)) merged[merged.length - 1] = { ...previous, ...withoutText(part) };
    else merged.push(part);
  }
  const customTools = readCustomToolNames(context.requestEcho);
  const items: WireItem[] = [];
  let texts: CanonicalTextPart[] | undefined;
  const flushTexts = (): void => {
    if (texts !== undefined) items.push(formatMessageItem(context.newId('msg_'), 'completed', texts));
    texts = undefined;
  };
  for (const part of merged) {
    if (part.type === 'text') {
      (texts ??= []).push(part);
      continue;
    }
    flushTexts();
    switch (part.type) {
      case 'reasoning': {
        const encrypted = formatOpenaiResponsesEncryptedContent(part);
        warnings.push(...encrypted.warnings);
        items.push(formatReasoningItem(context.newId('rs_'), part.text, encrypted.value));
        break;
      }
      case 'tool-call': {
        if (!customTools.has(part.name)) {
          items.push(formatFunctionCallItem(context.newId('fc_'), 'completed', part));
          break;
        }
        const input = unwrapCustomToolInput(part.name, part.arguments);
        warnings.push(...input.warnings.map((warning) => `output[${items.length}]: ${warning}`));
        items.push(formatCustomToolCallItem(context.newId('ctc_'), 'completed', { id: part.id, name: part.name, input: input.value }));
        break;
      }
      default: {
        const unhandled: never = part;
        throw new Error(`unhandled assistant part ${JSON.stringify(unhandled)}`);
      }
    }
  }
  flushTexts();
  const cut = incomplete ? lastItemWithContent(items) : undefined;
  if (cut !== undefined && 'status' in cut) cut.status = 'incomplete';
  return { value: items, warnings };
}

/**
 * The item a stop cut: the last one, less a trailing reasoning item that holds only opaque data (Gemini
 * sends its `thoughtSignature` on the answer's last part, after the text: ai.google.dev/gemini-api/docs/
 * thought-signatures), which was not cut and, as reasoning, carries no status to mark.
 */
function lastItemWithContent(items: WireItem[]): WireItem | undefined {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index]!;
    const signatureOnly = item.type === 'reasoning' && Array.isArray(item.summary) && item.summary.length === 0;
    if (!signatureOnly) return item;
  }
  return undefined;
}
