import type { CanonicalStreamPart } from '../canonical/canonical-stream-part.js';
import { readInBandFailure } from './read-in-band-failure.js';
import type { AttemptOutcome } from './run-failover.js';
import type { UsageMeter } from './usage-meter.js';

/**
 * The opening of a relayed stream — what is written before the answer's first content (Anthropic's
 * `message_start`, a Responses client's `response.created`) — held back until that content comes. An
 * upstream that fails in-band before any content (an overloaded error right after its opening event) has
 * then sent the client nothing, and the request can fail over as a reset would, instead of committing the
 * client to a stream that holds only an error.
 */
export class StreamOpening {
  private held: string[] | undefined = [];
  /** The in-band error that came before any content: from then on nothing goes out. */
  private failedWith: Extract<CanonicalStreamPart, { type: 'error' }> | undefined;

  constructor(private readonly write: (text: string) => void) {}

  /** Whether events are held back: the upstream has spoken, but nothing reached the client yet. */
  get holding(): boolean {
    return this.held !== undefined && this.held.length > 0;
  }

  /** Whether the answer began (what was held went out, or would have: it may have encoded to nothing). */
  get released(): boolean {
    return this.held === undefined;
  }

  /** The upstream failed before its answer began: stop reading, the attempt fails over. */
  get failed(): boolean {
    return this.failedWith !== undefined;
  }

  /**
   * Reads a part on its way out: whether it may go to the client. An error before any content is kept
   * (and nothing goes out after it: one event may decode to error + finish); the answer's first content
   * releases what was held.
   */
  admit(part: CanonicalStreamPart): boolean {
    if (this.failedWith !== undefined) return false;
    if (part.type === 'error' && this.held !== undefined) {
      this.failedWith = part;
      return false;
    }
    // Parts for billing only (usage, interim input, searches run, other candidates' text) write nothing: not
    // the answer's start; nor is an output item's id (its content, or a tool call, is).
    if (part.type !== 'start' && part.type !== 'error' && part.type !== 'usage' && part.type !== 'input-usage' && part.type !== 'web-searches' && part.type !== 'uncarried-output' && part.type !== 'output-item') this.release();
    return true;
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

  /**
   * The attempt's outcome when it failed before its answer and nothing reached the client: a failure the
   * next channel is tried after — and, should none answer, the client gets an error and is charged nothing
   * (nothing was delivered, unless web searches ran before it: those are billed) —, or, when the error's code
   * says the request is at fault, the 400 that goes straight back to the client (readInBandFailure).
   * Undefined otherwise.
   */
  failedOutcome(meter: UsageMeter, key: string): AttemptOutcome<{ status: number }> | undefined {
    if (this.failedWith === undefined || meter.clientAborted || meter.committed) return undefined;
    meter.interruption = undefined;
    const failure = readInBandFailure([this.failedWith], key) ?? { kind: 'connection' as const, message: 'The upstream failed before answering.' };
    // Searches that ran before the failure are billed by the upstream: the attempt answered (and is billed
    // them should no later attempt serve, as any in-band failure's output is).
    return meter.producedBillable() ? { kind: 'failed', failure, upstreamAnswered: true } : { kind: 'failed', failure };
  }
}
