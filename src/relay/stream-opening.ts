import type { CanonicalStreamPart } from '../canonical/canonical-stream-part.js';

/**
 * The opening of a relayed stream — what is written before the answer's first content (Anthropic's
 * `message_start`, a Responses client's `response.created`) — held back until that content comes. An
 * upstream that fails in-band before any content (an overloaded error right after its opening event) has
 * then sent the client nothing, and the request can fail over as a reset would, instead of committing the
 * client to a stream that holds only an error.
 */
export class StreamOpening {
  private held: string[] | undefined = [];

  constructor(private readonly write: (text: string) => void) {}

  /** Still holding: no content has come yet. */
  get holding(): boolean {
    return this.held !== undefined;
  }

  push(text: string): void {
    if (text === '') return;
    if (this.held === undefined) this.write(text);
    else this.held.push(text);
  }

  /** The answer began (or the stream ends): what was held goes out, and from now on everything at once. */
  release(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    for (const text of held) this.write(text);
  }
}

/** Pure: whether a part is (or ends) the answer itself, after which the opening is released. */
export function beginsAnswer(part: CanonicalStreamPart): boolean {
  return part.type !== 'start' && part.type !== 'error' && part.type !== 'usage';
}
