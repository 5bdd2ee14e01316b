/**
 * One loopback base URL in front of a fake upstream, forwarding every request as it came (path-router.ts),
 * except the ones `holds` picks: their answer is held half-sent — status line, headers (with the whole
 * answer's `content-length`) and the first half of the body go out, then the proxy waits for the test to
 * `release` it (the rest follows) or `cut` it (the socket is destroyed). This is an upstream whose 2xx
 * arrived and whose body is still coming, whatever the fake behind it speaks. It never imports gateway code.
 */
import { createServer, request as forward, type IncomingMessage } from 'node:http';
import { closeServer, listenOnLoopback } from './fake-http-helpers.js';

/** An answer held half-sent. */
export interface HeldAnswer {
  /** The fake's status for the request. */
  status: number;
  /** The fake's whole answer body (the proxy has sent its first half). */
  body: string;
  /** Sends the rest of the body. */
  release(): void;
  /** Destroys the connection without sending the rest. */
  cut(): void;
}

export interface HeldAnswerProxy {
  url: string;
  /** The next answer held (one already held and not yet taken, or the next to come). */
  nextHeld(): Promise<HeldAnswer>;
  close(): Promise<void>;
}

export async function startHeldAnswerProxy(target: string, holds: (request: IncomingMessage) => boolean): Promise<HeldAnswerProxy> {
  const held: HeldAnswer[] = [];
  const waiting: ((answer: HeldAnswer) => void)[] = [];
  const hand = (answer: HeldAnswer) => {
    const waiter = waiting.shift();
    if (waiter === undefined) held.push(answer);
    else waiter(answer);
  };
  const server = createServer((incoming, outgoing) => {
    const hold = holds(incoming);
    const upstream = forward(new URL(incoming.url ?? '/', target), { method: incoming.method, headers: incoming.headers }, (answer) => {
      if (!hold) {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        const half = Math.floor(body.length / 2);
        const headers = { ...answer.headers, 'content-length': String(body.length) };
        delete headers['transfer-encoding'];
        outgoing.writeHead(answer.statusCode ?? 502, headers);
        outgoing.write(body.subarray(0, half), () =>
          hand({
            status: answer.statusCode ?? 502,
            body: body.toString('utf8'),
            release: () => outgoing.end(body.subarray(half)),
            cut: () => outgoing.destroy(),
          }),
        );
      });
    });
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  return {
    url: await listenOnLoopback(server),
    nextHeld: () => {
      const answer = held.shift();
      return answer === undefined ? new Promise((resolve) => waiting.push(resolve)) : Promise.resolve(answer);
    },
    close: () => closeServer(server),
  };
}
