import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/** Resolves when the client drained its buffer, or when the connection closed (never hangs). */
export function waitForDrain(response: ServerResponse): Promise<void> {
  if (response.destroyed || response.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

export const sseResponseHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  // Tells nginx-style proxies in front of the gateway not to buffer the stream.
  'x-accel-buffering': 'no',
} as const;

/**
 * The client side of a relayed stream. The status line and headers go out with the first text; the texts
 * written while one upstream read is decoded are joined and sent by `flush` in one write — one write to
 * the client per upstream read, not one per event. `committed` (the meter's) turns true with the first
 * text: from then on the request cannot be retried on another channel.
 */
export class ClientStreamWriter {
  private pending = '';
  private needsDrain = false;

  constructor(
    private readonly reply: FastifyReply,
    private readonly meter: { committed: boolean },
    private readonly headers: () => Record<string, string>,
  ) {}

  /** Queues `text` for the next flush; the first call (even with '') commits the response. */
  write(text: string): void {
    if (!this.meter.committed) {
      this.meter.committed = true;
      void this.reply.hijack();
      this.reply.raw.writeHead(200, this.headers());
    }
    this.pending += text;
  }

  /** Sends what was queued, in one write. */
  flush(): void {
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    if (!this.reply.raw.write(text)) this.needsDrain = true;
  }

  /** Sends what was queued, then waits for the client to take it when its buffer is full (backpressure). */
  async flushAndDrain(): Promise<void> {
    this.flush();
    if (!this.needsDrain) return;
    this.needsDrain = false;
    await waitForDrain(this.reply.raw);
  }

  /** Sends what was queued and `last`, and ends the response. */
  end(last?: string): void {
    this.flush();
    if (last === undefined) this.reply.raw.end();
    else this.reply.raw.end(last);
  }
}
