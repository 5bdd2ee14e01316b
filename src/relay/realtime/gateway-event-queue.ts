/**
 * The events a Realtime session's gateway makes itself for its client (the `error` answering a refused
 * `session.update`, the `error` that ends a session), held until the upstream's first server event has
 * reached the client. OpenAI's first event is always `session.created`, and clients (the openai SDK's
 * helpers among them) may take the first event for the session: a client that sends a bad update before it
 * read anything would otherwise get the gateway's `error` first. Once released, events go as they are made.
 * The queue is bounded (its bytes): a client that makes the gateway hold more is told so by `offer`'s false.
 * When the session ends before the upstream said anything, what is held goes then, before the close frame:
 * the `error` saying why the session ended is what a client SDK shows (the close's reason it does not).
 * No I/O: `send` does it.
 */
export class GatewayEventQueue {
  private held: string[] = [];
  private heldBytes = 0;
  private state: 'waiting' | 'released' | 'ended' = 'waiting';

  constructor(private readonly maxHeldBytes: number) {}

  /** The upstream's first event has not reached the client yet (the session not ended either). */
  get waiting(): boolean {
    return this.state === 'waiting';
  }

  /**
   * `text` sent now (by `send`) once released, held while waiting, discarded once ended; false only when
   * holding it would pass the bound (it is then not kept).
   */
  offer(text: string, send: (text: string) => void): boolean {
    if (this.state === 'released') {
      send(text);
      return true;
    }
    if (this.state === 'ended') return true;
    const bytes = Buffer.byteLength(text, 'utf8');
    if (this.heldBytes + bytes > this.maxHeldBytes) return false;
    this.held.push(text);
    this.heldBytes += bytes;
    return true;
  }

  /** The upstream's first event reached the client: what is held goes, in the order it was made. */
  release(send: (text: string) => void): void {
    if (this.state !== 'waiting') return;
    this.state = 'released';
    this.sendHeld(send);
  }

  /**
   * The session ends (its close frame follows): what is still held goes now, in the order it was made,
   * though the upstream's first event never came; nothing is sent after.
   */
  end(send: (text: string) => void): void {
    const wasWaiting = this.state === 'waiting';
    this.state = 'ended';
    if (wasWaiting) this.sendHeld(send);
  }

  private sendHeld(send: (text: string) => void): void {
    const held = this.held;
    this.held = [];
    this.heldBytes = 0;
    for (const text of held) send(text);
  }
}
