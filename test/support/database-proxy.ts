import { createServer, connect, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a shared database server, so a probe can make "the database" unreachable for
 * one gateway without touching the server other tests use.
 * - `blackout()`: every open connection is cut and new ones are closed at once (database down).
 * - `dropAnswers()`: queries still reach the server, but the first bytes it answers cut the connection
 *   (the server committed, the client never hears it: outcome unknown).
 * - `restore()`: back to a plain pipe.
 */
export interface DatabaseProxy {
  port: number;
  /** The database URL with its host and port replaced by the proxy's. */
  urlFor(databaseUrl: string): string;
  blackout(): void;
  dropAnswers(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startDatabaseProxy(targetHost: string, targetPort: number): Promise<DatabaseProxy> {
  let mode: 'pipe' | 'blackout' | 'drop-answers' = 'pipe';
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    if (mode === 'blackout') return void client.destroy();
    const upstream = connect(targetPort, targetHost);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.on('data', (data) => upstream.write(data));
    upstream.on('data', (data) => {
      if (mode === 'drop-answers') return end();
      client.write(data);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    urlFor(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    blackout() {
      mode = 'blackout';
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    dropAnswers() {
      mode = 'drop-answers';
    },
    restore() {
      mode = 'pipe';
    },
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The servers' own ports, for a database URL that names none. */
const defaultPorts: Record<string, number> = { 'postgres:': 5432, 'postgresql:': 5432, 'mysql:': 3306 };

/** A proxy in front of the server of `databaseUrl` (PostgreSQL or MySQL). */
export function startDatabaseProxyFor(databaseUrl: string): Promise<DatabaseProxy> {
  const target = new URL(databaseUrl);
  const port = Number(target.port || defaultPorts[target.protocol]);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`no port for a proxy in front of ${target.protocol} ${target.hostname}`);
  return startDatabaseProxy(target.hostname, port);
}
