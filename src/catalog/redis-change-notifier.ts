import { Redis } from 'ioredis';
import type { ChangeNotifier } from './catalog.js';

/**
 * The pub/sub channel of the deployment whose Redis is `db`. Redis delivers a PUBLISH to the subscribers
 * of every logical database, so deployments that share one Redis server on different databases would
 * otherwise wake each other's replicas (a catalog reload each time), and a test on one database could see
 * another test's notices.
 */
export function catalogChannelName(db: number): string {
  return `unified-relay:catalog:${db}`;
}

/** Tells every replica that the catalog changed, so a new token or channel works at once everywhere. */
export function createRedisChangeNotifier(redisUrl: string): ChangeNotifier {
  // A stalled Redis must not hold an admin write that publishes its change: it fails after 1 s (the
  // replicas still see the change at their next sync, SYNC_FREQUENCY).
  const publisher = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2, commandTimeout: 1000 });
  publisher.on('error', () => undefined);
  // ioredis reads the logical database from the URL (`redis://host:6379/3`); 0 when it names none.
  const channelName = catalogChannelName(publisher.options.db ?? 0);
  let subscriber: Redis | undefined;
  return {
    async publish(version) {
      if (publisher.status === 'wait') await publisher.connect();
      await publisher.publish(channelName, version);
    },
    async subscribe(onVersion, onResubscribed) {
      // Resubscribed here rather than by ioredis (which does it without saying when it is done), so the
      // listener hears of it once the server has confirmed the subscription: a change published after
      // that is heard, and one published before it is in the database the listener then reads.
      const connection = new Redis(redisUrl, { maxRetriesPerRequest: 2, autoResubscribe: false });
      subscriber = connection;
      connection.on('error', () => undefined);
      connection.on('message', (_channel: string, version: string) => onVersion(version));
      await connection.subscribe(channelName);
      // The first connection's 'ready' came before its SUBSCRIBE was answered: each from now on is a reconnection.
      connection.on('ready', () => {
        connection
          .subscribe(channelName)
          .then(() => onResubscribed())
          .catch(() => undefined);
      });
    },
    async close() {
      publisher.disconnect();
      subscriber?.disconnect();
    },
  };
}
