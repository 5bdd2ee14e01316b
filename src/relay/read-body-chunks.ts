/** What readBodyChunks reads: a Readable, or an upstream answer's UpstreamBody. */
export interface ChunkSource {
  on(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
  off(event: string, listener: (...args: any[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  destroy(): unknown;
  readonly errored: Error | null;
  readonly destroyed: boolean;
}

/** What `onChunk` asks for: go on (undefined), stop reading ('stop'), or pause until the promise settles. */
export type ChunkVerdict = undefined | 'stop' | Promise<void>;

/**
 * Reads an upstream body chunk by chunk through 'data' events: `onChunk` runs as each chunk arrives,
 * inside the read that brought it — no promise and no microtask hop per chunk, which `for await` costs
 * (a stream of many small reads pays it on every token). Backpressure: when `onChunk` returns a promise
 * (the client's buffer is full), the body is paused until it settles.
 *
 * Resolves 'ended' at the body's end, 'stopped' when `onChunk` said 'stop'. Rejects with the body's error,
 * with what `onChunk` throws (or its promise rejects with), or with a "Premature close" error when the body
 * closes before its end. After 'stopped' or a rejection caused by `onChunk`, the body is destroyed, as
 * leaving a `for await` loop early does, so the upstream connection is released.
 */
export function readBodyChunks(body: ChunkSource, onChunk: (chunk: Buffer) => ChunkVerdict): Promise<'ended' | 'stopped'> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (settle: () => void, destroy: boolean) => {
      if (done) return;
      done = true;
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
      if (destroy) body.destroy();
      settle();
    };
    const onData = (chunk: Buffer | Uint8Array | string) => {
      if (done) return;
      let verdict: ChunkVerdict;
      try {
        verdict = onChunk(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      } catch (error) {
        finish(() => reject(error), true);
        return;
      }
      if (verdict === undefined) return;
      if (verdict === 'stop') {
        finish(() => resolve('stopped'), true);
        return;
      }
      body.pause();
      verdict.then(
        () => {
          if (!done) body.resume();
        },
        (error: unknown) => finish(() => reject(error), true),
      );
    };
    const onEnd = () => finish(() => resolve('ended'), false);
    const onError = (error: Error) => finish(() => reject(error), false);
    const onClose = () => finish(() => reject(new Error('Premature close')), false);
    // A body that failed or closed before we listen would emit nothing more.
    if (body.errored !== null) return reject(body.errored);
    if (body.destroyed) return reject(new Error('Premature close'));
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onError);
    body.once('close', onClose);
  });
}
