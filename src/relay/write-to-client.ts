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

export const sseContentType = 'text/event-stream; charset=utf-8';

/**
 * A whole answer (not a stream), written to node:http directly, as the stream path writes its events.
 * Fastify's `reply.headers(…).header(…).send(…)` put each header through its own store before node:http
 * validated them all again: `Reply.headers` alone ran ~7,800 instructions per chat request (BENCHMARKS.md,
 * session 13). The response carries the attempt's client headers (request id, channel, attempts, rate
 * limits), the content type and the length; a literal with the spread last (see streamResponseHeaders).
 */
export function sendWholeAnswer(reply: FastifyReply, status: number, headers: Record<string, string>, contentType: string, body: Buffer | string): void {
  void reply.hijack();
  const raw = reply.raw;
  raw.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...headers });
  raw.end(body);
}

/**
 * A stream's response headers: the content type, no caching, keep-alive, and `x-accel-buffering: no`
 * (tells nginx-style proxies in front of the gateway not to buffer the stream), then `extra`. A literal
 * with the spread last: V8 (Node 20) makes adding keys to a `{ ...spread }` clone cost µs.
 */
export function streamResponseHeaders(extra: Record<string, string>, contentType: string = sseContentType): Record<string, string> {
  return { 'content-type': contentType, 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no', ...extra };
}

/**
 * The client side of a relayed stream. The status line and headers go out with the first write; what is
 * written while one upstream read is handled is queued and sent by `flush` — text joined into one string,
 * bytes (ranges of the upstream's read, forwarded as received) as they are — with the socket corked until
 * the end of the event-loop turn's I/O phase, so one upstream read costs one writev to the client.
 * `committed` (the meter's) turns true with the first write: from then on the request cannot be retried
 * on another channel.
 */
export class ClientStreamWriter {
  private readonly pending: (string | Uint8Array)[] = [];
  private needsDrain = false;
  private corked = false;
  /** Grows with every flush that sent something (the keep-alive reads it: stream-keepalive.ts). */
  writes = 0;

  constructor(
    private readonly reply: FastifyReply,
    private readonly meter: { committed: boolean },
    private readonly headers: () => Record<string, string>,
  ) {}

  /** Queues `text` for the next flush; the first call (even with '') commits the response. */
  write(text: string): void {
    if (!this.meter.committed) this.commit();
    if (text === '') return;
    const last = this.pending.length - 1;
    if (last >= 0 && typeof this.pending[last] === 'string') this.pending[last] += text;
    else this.pending.push(text);
  }

  /** Queues bytes for the next flush, without copying them: they must not change until written. */
  writeBytes(bytes: Uint8Array): void {
    if (!this.meter.committed) this.commit();
    if (bytes.length > 0) this.pending.push(bytes);
  }

  /** Sends what was queued. */
  flush(): void {
    const count = this.pending.length;
    if (count === 0) return;
    this.writes += 1;
    this.corkUntilImmediate();
    const raw = this.reply.raw;
    for (let index = 0; index < count; index++) if (!raw.write(this.pending[index]!)) this.needsDrain = true;
    this.pending.length = 0;
  }

  /**
   * Sends what was queued; when the client's buffer is full (backpressure), returns a promise that settles
   * once the client took it — otherwise undefined, so the common case allocates no promise.
   */
  flushAndDrain(): Promise<void> | undefined {
    this.flush();
    if (!this.needsDrain) return undefined;
    this.needsDrain = false;
    return waitForDrain(this.reply.raw);
  }

  /** Sends what was queued and `last`, and ends the response. */
  end(last?: string): void {
    this.flush();
    this.corkUntilImmediate();
    if (last === undefined) this.reply.raw.end();
    else this.reply.raw.end(last);
  }

  /**
   * An SSE comment, which every SSE reader skips, sent at once: keeps a silent stream's connection alive
   * through proxies that cut idle ones. Commits the response if nothing did yet. Nothing once it ended.
   */
  /** Whether the client's response can take no more (ended, or its connection gone). */
  get closed(): boolean {
    return this.reply.raw.destroyed || this.reply.raw.writableEnded;
  }

  ping(): void {
    if (this.closed) return;
    this.write(': keep-alive\n\n');
    this.flush();
  }

  private commit(): void {
    this.meter.committed = true;
    void this.reply.hijack();
    this.reply.raw.writeHead(200, this.headers());
  }

  /**
   * Holds the socket's writes until the end of this event-loop turn's I/O phase: node:http uncorks on the
   * next tick, so an upstream read that carried the stream's end (the usual case for a short answer) cost
   * a second syscall for the chunked terminator; held until setImmediate, the status line, the events and
   * the terminator leave in one writev.
   */
  private corkUntilImmediate(): void {
    const socket = this.reply.raw.socket;
    if (this.corked || !socket || socket.destroyed) return;
    this.corked = true;
    socket.cork();
    setImmediate(() => {
      this.corked = false;
      socket.uncork();
    });
  }
}
