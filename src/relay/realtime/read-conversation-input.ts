import { isRecord } from '../../convert/shared/is-record.js';

/**
 * Pure: the text a Realtime conversation item puts before the model — a message's `input_text` parts (and,
 * when `assistantText`, an assistant message's `output_text` / beta `text` parts) and a tool result's
 * `output` — as one text; '' for an item of none (audio, images, references to other items). Audio is
 * never read: what it costs is not known from the text (docs/behaviour.md "Realtime").
 */
export function conversationItemText(item: unknown, assistantText: boolean): string {
  if (!isRecord(item)) return '';
  if (item.type === 'function_call_output') return typeof item.output === 'string' ? item.output : '';
  if (item.type !== 'message' || !Array.isArray(item.content)) return '';
  // The model writes assistant messages too: one echoed back by the upstream may be its own output.
  if (item.role === 'assistant' && !assistantText) return '';
  const texts: string[] = [];
  for (const part of item.content) {
    if (!isRecord(part) || typeof part.text !== 'string') continue;
    if (part.type === 'input_text' || (assistantText && (part.type === 'output_text' || part.type === 'text'))) texts.push(part.text);
  }
  return texts.join('\n');
}

/**
 * Pure: an item the upstream added to the session's default conversation (GA `conversation.item.added`,
 * beta `conversation.item.created`), as its id and the text a client put in it — a user or system message's
 * text, a tool result — or undefined for another event. Assistant messages are left out: the upstream
 * adds the model's own answers the same way, and those are billed as output.
 */
export function conversationItemAdded(event: unknown): { itemId: string | undefined; text: string } | undefined {
  if (!isRecord(event) || (event.type !== 'conversation.item.added' && event.type !== 'conversation.item.created') || !isRecord(event.item)) return undefined;
  return { itemId: typeof event.item.id === 'string' ? event.item.id : undefined, text: conversationItemText(event.item, false) };
}

/** Pure: the item a `conversation.item.deleted` removed from the conversation, or undefined for another event. */
export function conversationItemDeleted(event: unknown): string | undefined {
  if (!isRecord(event) || event.type !== 'conversation.item.deleted') return undefined;
  return typeof event.item_id === 'string' ? event.item_id : undefined;
}
