import { countTextTokens } from './count-tokens.js';

/**
 * Counts streamed text for upstreams that report no usage, with a bounded buffer: text is tokenized in
 * batches, so a very long stream never holds more than `maxPendingChars` (new-api #6159: OOM from
 * accumulating whole outputs). Nothing is tokenized when usage arrives and the tally is never asked.
 */
export class TokenTally {
  private pending: string[] = [];
  private pendingChars = 0;
  private counted = 0;
  private pieces = 0;

  constructor(private readonly maxPendingChars = 256 * 1024) {}

  add(text: string): void {
    if (text === '') return;
    this.pending.push(text);
    this.pendingChars += text.length;
    this.pieces += 1;
    if (this.pendingChars >= this.maxPendingChars) this.flush();
  }

  /** Whether any text was seen at all. */
  get isEmpty(): boolean {
    return this.pieces === 0;
  }

  total(): number {
    this.flush();
    return this.counted;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.counted += countTextTokens(this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
  }
}
