/**
 * Stream events held unparsed until the end, for a local count in case the upstream never reports
 * usage: decoded texts, or ranges of the upstream's reads as received. A range is three numbers beside
 * its read, not a Buffer view per event (a subarray is a new object and ~300 instructions; most events
 * of a stream are held and never looked at again).
 */
export class HeldEvents {
  private texts: string[] = [];
  private reads: Buffer[] = [];
  /** Per event: the index of its read in `reads`, its start, its end. */
  private ranges: number[] = [];
  /** Characters or bytes held. */
  size = 0;

  addText(text: string): void {
    this.texts.push(text);
    this.size += text.length;
  }

  /** bytes[start, end): the bytes must not change until drained (upstream reads never do). */
  addRange(bytes: Buffer, start: number, end: number): void {
    let read = this.reads.length - 1;
    if (read < 0 || this.reads[read] !== bytes) {
      this.reads.push(bytes);
      read += 1;
    }
    this.ranges.push(read, start, end);
    this.size += end - start;
  }

  /** Each held event's text, then forgets them all. */
  drain(each: (data: string) => void): void {
    const { texts, reads, ranges } = this;
    this.texts = [];
    this.reads = [];
    this.ranges = [];
    this.size = 0;
    for (const text of texts) each(text);
    for (let index = 0; index < ranges.length; index += 3) {
      each((reads[ranges[index] as number] as Buffer).toString('utf8', ranges[index + 1], ranges[index + 2]));
    }
  }
}
