/**
 * A Realtime upstream the test scripts itself: a WebSocket server on a free loopback port that hands each
 * upstream connection the gateway opens to `onConnection`. `close` cuts every connection and stops it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export async function listenRealtimeUpstream(onConnection: (ws: WebSocket) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  wss.on('connection', onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.close(() => resolve());
      }),
  };
}
