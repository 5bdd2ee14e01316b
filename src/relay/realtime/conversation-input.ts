/**
 * More text than any Realtime model's context holds (128k tokens at about four characters a token): what
 * lies beyond it the upstream truncates away, oldest first, before a response reads the conversation.
 */
export const maxConversationInputChars = 1_000_000;

/**
 * The text of the items added to a session's default conversation since the last response that reads it
 * was created, by item id, oldest first: that next response's input. Bounded: past `maxChars` the oldest
 * items are dropped, as the upstream truncates them — a client adding items and never asking for a
 * response holds no more of the gateway's memory than that.
 */
export class ConversationInput {
  private readonly items = new Map<string, string>();
  private chars = 0;
  private unnamed = 0;

  constructor(private readonly maxChars = maxConversationInputChars) {}

  add(itemId: string | undefined, text: string): void {
    if (text === '') return;
    const key = itemId ?? `unnamed-item-${(this.unnamed += 1)}`;
    this.delete(key);
    this.items.set(key, text);
    this.chars += text.length;
    for (const [oldest, oldestText] of this.items) {
      if (this.chars <= this.maxChars) break;
      this.items.delete(oldest);
      this.chars -= oldestText.length;
    }
  }

  delete(itemId: string): void {
    const text = this.items.get(itemId);
    if (text === undefined) return;
    this.items.delete(itemId);
    this.chars -= text.length;
  }

  /** The texts held, oldest first, handed to the response that reads them: none are held from here. */
  take(): string[] {
    const texts = [...this.items.values()];
    this.items.clear();
    this.chars = 0;
    return texts;
  }
}
