/**
 * One loopback base URL in front of several fake upstreams, chosen by path prefix (a reseller serves the
 * Seedance asset API and the video API on one host). Each request is forwarded as it came — method, path,
 * headers, body — and the chosen fake's answer returned as it is. It never imports gateway code.
 */
import { createServer, request as forward } from 'node:http';
import { closeServer, listenOnLoopback } from './fake-http-helpers.js';

export interface PathRouter {
  url: string;
  close(): Promise<void>;
}

/** `routes`: path prefix → the fake's base URL; the first prefix that matches wins. */
export async function startPathRouter(routes: ReadonlyArray<readonly [prefix: string, baseUrl: string]>): Promise<PathRouter> {
  const server = createServer((incoming, outgoing) => {
    const path = incoming.url ?? '/';
    const target = routes.find(([prefix]) => path.startsWith(prefix))?.[1];
    if (target === undefined) {
      outgoing.writeHead(404).end();
      return;
    }
    const upstream = forward(new URL(path, target), { method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  return { url: await listenOnLoopback(server), close: () => closeServer(server) };
}
