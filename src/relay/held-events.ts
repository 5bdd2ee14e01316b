/**
 * Stream events held unparsed until the end, for a local count in case the upstream never reports
 * usage: decoded texts, or the bytes of events framed as received, copied into one-byte strings (latin1:
 * a character per byte, decoded as UTF-8 only if the count is ever needed). Not the upstream's reads
 * themselves: held by reference, every read lived as long as its stream, and with 1,000 slow streams
 * (a read per token) the gateway took ~4 % more CPU per stream and ~7 MB more memory (BENCHMARKS.md,
 * session 14). A copy costs ~700 instructions per held event where a whole stream arrives in one read
 * (+1.6 % per stream there).
 */
export class HeldEvents {
  private texts: string[] = [];
  /** Events' bytes as one-byte strings (latin1: one character per byte, copied as they are). */
  private raw: string[] = [];
  /** Characters or bytes held. */
  size = 0;

  addText(text: string): void {
    this.texts.push(text);
    this.size += text.length;
  }

  /** Holds a copy of bytes[start, end), and returns it (its bytes as a one-byte string). */
  addRange(bytes: Buffer, start: number, end: number): string {
    const copy = bytes.toString('latin1', start, end);
    this.raw.push(copy);
    this.size += end - start;
    return copy;
  }

  /** Each held event's text, then forgets them all. */
  drain(each: (data: string) => void): void {
    const { texts, raw } = this;
    this.texts = [];
    this.raw = [];
    this.size = 0;
    for (const text of texts) each(text);
    for (const bytes of raw) each(Buffer.from(bytes, 'latin1').toString('utf8'));
  }
}
