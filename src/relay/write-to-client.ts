import type { ServerResponse } from 'node:http';

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
