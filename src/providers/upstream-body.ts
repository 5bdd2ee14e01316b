import { EventEmitter } from 'node:events';

/** Default bound of a whole-body read: 64 MiB, above any JSON answer (a 4K image as base64 is ~30 MB). */
export const defaultMaxWholeBodyBytes = 64 * 1024 * 1024;

/** A whole-body read passed its bound. */
export class UpstreamBodyTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`the upstream answer is larger than ${limitBytes} bytes (MAX_UPSTREAM_RESPONSE_MB)`);
  }
}

interface WholeRead {
  chunks: Buffer[];
  size: number;
  resolve(bytes: Buffer): void;
  reject(error: Error): void;
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
 * - A whole-body read (bytes/text/json) is the body's only reader: it takes the chunks as undici hands them
 *   over, with no 'data' events and no tick (a non-streaming answer is read this way on every request).
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
  /** A whole-body read in progress: chunks go straight to it, with no events and no tick. */
  private whole: WholeRead | undefined;

  /** The most a whole-body read takes (MAX_UPSTREAM_RESPONSE_MB): also the bound of an answer collected whole from events. */
  get wholeLimitBytes(): number {
    return this.maxWholeBytes;
  }

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
    if (this.whole !== undefined) return this.collect(this.whole, chunk);
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
    if (this.whole !== undefined) this.finishWhole(this.whole);
    else if (this.flowing && !this.paused && this.held.length === 0) this.emitEnd();
  }

  /** From the dispatcher: the request failed after the headers (reset, body timeout, abort). */
  fail(error: Error): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.errored = error;
    this.held = [];
    this.heldBytes = 0;
    this.abandonWhole(error);
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
    this.abandonWhole(new Error('Premature close'));
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
      if (this.flowing || this.whole !== undefined) return reject(new Error('The upstream body is already being read'));
      // The only reader from here on: what is held is taken at once, the rest as it comes (push).
      const whole: WholeRead = { chunks: [], size: 0, resolve, reject };
      this.whole = whole;
      this.flowing = true;
      const held = this.held;
      this.held = [];
      this.heldBytes = 0;
      for (const chunk of held) if (!this.collect(whole, chunk)) return;
      if (this.ended) this.finishWhole(whole);
      else if (this.upstreamWaits) {
        this.upstreamWaits = false;
        this.resumeUpstream();
      }
    });
  }

  async text(): Promise<string> {
    return (await this.bytes()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /** One chunk into the whole-body read; past the bound the read fails and the body is destroyed. */
  private collect(whole: WholeRead, chunk: Buffer): boolean {
    whole.size += chunk.length;
    if (whole.size <= this.maxWholeBytes) {
      whole.chunks.push(chunk);
      return true;
    }
    const tooLarge = new UpstreamBodyTooLarge(this.maxWholeBytes);
    this.abandonWhole(tooLarge);
    this.destroy(tooLarge);
    return false;
  }

  private finishWhole(whole: WholeRead): void {
    this.whole = undefined;
    whole.resolve(whole.chunks.length === 1 ? (whole.chunks[0] as Buffer) : Buffer.concat(whole.chunks, whole.size));
    this.emitEnd();
  }

  private abandonWhole(error: Error): void {
    const whole = this.whole;
    if (whole === undefined) return;
    this.whole = undefined;
    whole.chunks = [];
    whole.reject(error);
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
