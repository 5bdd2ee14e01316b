import { loadedTokenCounter, loadTokenCounter, type TokenCounter } from './count-tokens.js';

/**
 * Counts streamed text for upstreams that report no usage, with a bounded buffer: text is tokenized in
 * batches, so a very long stream never holds more than `maxPendingChars` (new-api #6159: OOM from
 * accumulating whole outputs). Nothing is tokenized when usage arrives and the tally is never asked, and
 * the tokenizer is not even loaded unless a stream outgrows the buffer (it is then loaded in the
 * background and the buffer drained once it is there).
 */
export class TokenTally {
  private pending: string[] = [];
  private pendingChars = 0;
  private counted = 0;
  private pieces = 0;
  private chars = 0;

  constructor(private readonly maxPendingChars = 256 * 1024) {}

  add(text: string): void {
    if (text === '') return;
    this.pending.push(text);
    this.pendingChars += text.length;
    this.chars += text.length;
    this.pieces += 1;
    if (this.pendingChars < this.maxPendingChars) return;
    const counter = loadedTokenCounter();
    if (counter !== undefined) this.flush(counter);
    else void loadTokenCounter().catch(() => undefined);
  }

  /** Whether any text was seen at all. */
  get isEmpty(): boolean {
    return this.pieces === 0;
  }

  /** The UTF-16 code units seen: at once, without the tokenizer, about as many as the tokens or more. */
  get charsSeen(): number {
    return this.chars;
  }

  async total(): Promise<number> {
    if (this.pending.length > 0) this.flush(loadedTokenCounter() ?? (await loadTokenCounter()));
    return this.counted;
  }

  private flush(count: TokenCounter): void {
    this.counted += count(this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
  }
}
