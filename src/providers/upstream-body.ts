import { EventEmitter } from 'node:events';

/** Default bound of a whole-body read: 64 MiB, above any JSON answer (a 4K image as base64 is ~30 MB). */
export const defaultMaxWholeBodyBytes = 64 * 1024 * 1024;

/** A whole-body read passed its bound. */
export class UpstreamBodyTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`the upstream answer is larger than ${limitBytes} bytes (MAX_UPSTREAM_RESPONSE_MB)`);
  }
}

/**
 * An upstream answer's body as undici's dispatcher hands it over, chunk by chunk, with the part of a
 * Readable the relay uses: 'data' / 'end' / 'error' / 'close' events, pause(), resume(), destroy(),
 * `errored` and `destroyed` (what readBodyChunks reads), and whole-body reads. It replaces undici's
 * request() body (a full Readable stream, an async resource and an abort listener per request), which
 * cost ~7 µs of CPU per request more than dispatching directly (BENCHMARKS.md, session 5).
 *
 * - Chunks that arrive before anyone listens for 'data' are held; the first 'data' listener gets them on
 *   the next tick (as a Readable does), so the listeners attached in the same turn all see the whole body.
 * - A listener that pauses the body stops the delivery at once; what undici reads meanwhile is held.
 * - Like a Readable, undici is asked to stop reading the socket only once more than `highWaterMark` bytes
 *   are held (pausing and resuming the parser for every small answer cost more than it saved).
 * - destroy() before the end aborts the upstream request, so its connection is not reused half-read.
 * - An error is emitted only to 'error' listeners (none: it is kept in `errored`), never thrown.
 */
export class UpstreamBody extends EventEmitter {
  errored: Error | null = null;
  destroyed = false;
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** push() returned false: undici waits for resumeUpstream(). */
  private upstreamWaits = false;
  private flowing = false;
  private paused = false;
  private ended = false;
  private endEmitted = false;

  constructor(
    /** Tells undici to read the socket again after push() returned false. */
    private readonly resumeUpstream: () => void,
    /** Aborts the upstream request (its connection is closed, never reused). */
    private readonly abortUpstream: (reason: Error) => void,
    private readonly highWaterMark = 64 * 1024,
    /** The most a whole-body read (bytes/text/json) takes before it gives up (MAX_UPSTREAM_RESPONSE_MB). */
    private readonly maxWholeBytes = defaultMaxWholeBodyBytes,
  ) {
    super();
  }

  override on(event: string | symbol, listener: (...args: any[]) => void): this {
    super.on(event, listener);
    if (event === 'data' && !this.flowing) {
      this.flowing = true;
      process.nextTick(() => this.deliverHeld());
    }
    return this;
  }

  /** From the dispatcher: one chunk. False asks undici to stop reading until resumeUpstream(). */
  push(chunk: Buffer): boolean {
    if (this.destroyed) return false;
    if (!this.flowing || this.paused || this.held.length > 0) {
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      if (this.heldBytes < this.highWaterMark) return true;
      this.upstreamWaits = true;
      return false;
    }
    this.emit('data', chunk);
    return true;
  }

  /** From the dispatcher: the body is complete. */
  complete(): void {
    if (this.destroyed) return;
    this.ended = true;
    if (this.flowing && !this.paused && this.held.length === 0) this.emitEnd();
  }

  /** From the dispatcher: the request failed after the headers (reset, body timeout, abort). */
  fail(error: Error): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.errored = error;
    this.held = [];
    this.heldBytes = 0;
    if (this.listenerCount('error') > 0) this.emit('error', error);
    this.emit('close');
  }

  pause(): this {
    this.paused = true;
    return this;
  }

  resume(): this {
    if (!this.paused) return this;
    this.paused = false;
    if (this.flowing) this.deliverHeld();
    return this;
  }

  /** Stops the body; before its end this aborts the upstream request. Emits 'close' on the next tick. */
  destroy(error?: Error): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.held = [];
    this.heldBytes = 0;
    if (!this.ended) this.abortUpstream(error ?? new Error('The upstream body was destroyed before its end'));
    process.nextTick(() => this.emit('close'));
    return this;
  }

  /**
   * The whole body. Rejects with the body's error, when it is destroyed first, or with an
   * UpstreamBodyTooLarge as soon as it passes `maxWholeBytes` (the body is destroyed then, which aborts
   * the upstream request): an upstream cannot make the gateway hold an answer of any size.
   */
  bytes(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      if (this.errored !== null) return reject(this.errored);
      if (this.destroyed) return reject(new Error('Premature close'));
      const chunks: Buffer[] = [];
      let size = 0;
      let ended = false;
      this.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > this.maxWholeBytes) {
          const tooLarge = new UpstreamBodyTooLarge(this.maxWholeBytes);
          chunks.length = 0;
          reject(tooLarge);
          this.destroy(tooLarge);
          return;
        }
        chunks.push(chunk);
      });
      this.once('end', () => {
        ended = true;
        resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
      });
      this.once('error', reject);
      // 'close' follows 'end' too: only an early one is a failure (and only then is an Error built).
      this.once('close', () => {
        if (!ended) reject(this.errored ?? new Error('Premature close'));
      });
    });
  }

  async text(): Promise<string> {
    return (await this.bytes()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  private deliverHeld(): void {
    while (this.held.length > 0 && !this.paused && !this.destroyed) {
      const chunk = this.held.shift() as Buffer;
      this.heldBytes -= chunk.length;
      this.emit('data', chunk);
    }
    if (this.paused || this.destroyed) return;
    if (this.ended) this.emitEnd();
    else if (this.upstreamWaits) {
      this.upstreamWaits = false;
      this.resumeUpstream();
    }
  }

  private emitEnd(): void {
    if (this.endEmitted) return;
    this.endEmitted = true;
    this.emit('end');
    this.emit('close');
  }
}
