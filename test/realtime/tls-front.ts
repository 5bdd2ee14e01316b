import { readFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer } from 'node:tls';

const fixtures = new URL('../fixtures/tls/', import.meta.url);

/**
 * A TLS front for a plain-HTTP gateway on loopback: the openai SDK's Realtime client always dials `wss://`
 * (as it would through any TLS-terminating load balancer). Bytes are piped both ways unchanged; the
 * certificate is a self-signed one for 127.0.0.1 (test/fixtures/tls/), which the client is told to accept.
 */
export async function startTlsFront(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer({ key: readFileSync(new URL('localhost-key.pem', fixtures)), cert: readFileSync(new URL('localhost-cert.pem', fixtures)) }, (secure) => {
    const plain = connect(Number(port), hostname);
    sockets.add(plain);
    sockets.add(secure);
    secure.pipe(plain).pipe(secure);
    const end = () => {
      secure.destroy();
      plain.destroy();
    };
    secure.on('error', end).on('close', end);
    plain.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
