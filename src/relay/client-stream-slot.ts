import type { KeepAliveTarget } from './stream-keepalive.js';
import type { StreamOpening } from './stream-opening.js';
import type { ClientStreamWriter } from './write-to-client.js';

/**
 * A streaming request's client stream as the keep-alive sees it: the writer of the attempt under way, once
 * it opened one (with its held opening, if any). It pings only once the upstream has spoken — something
 * reached the client, an opening is held (sent first), or the answer began — since a ping commits the
 * response: an upstream that sent its headers and then nothing must still time out and fail over (504 →
 * the next channel), charged nothing. A class, not a literal with a getter and closures: one per streaming request.
 */
export class ClientStreamSlot implements KeepAliveTarget {
  private writer: ClientStreamWriter | undefined = undefined;
  private opening: StreamOpening | undefined = undefined;
  keepAliveIndex = -1;
  writesAtTick = 0;

  constructor(private readonly committed: { readonly committed: boolean }) {}

  /** The attempt under way opened its SSE stream to the client. */
  open(writer: ClientStreamWriter, opening?: StreamOpening): void {
    this.writer = writer;
    this.opening = opening;
  }

  /** The attempt is over without serving (or a new one starts): its writer is done with. */
  close(): void {
    this.writer = undefined;
    this.opening = undefined;
  }

  get writes(): number {
    return this.writer === undefined ? -1 : this.writer.writes;
  }

  ping(): void {
    const writer = this.writer;
    if (writer === undefined) return;
    // The upstream has spoken: bytes went out, an opening is held, or the answer began (a Gemini client's
    // reasoning or a tool call still being streamed encodes to nothing until later).
    const opening = this.opening;
    if (!this.committed.committed && opening?.holding !== true && opening?.released !== true) return;
    if (writer.closed) return;
    opening?.release();
    writer.ping();
  }
}
