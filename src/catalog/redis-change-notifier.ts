import { Redis } from 'ioredis';
import type { ChangeNotifier } from './catalog.js';

const channelName = 'unified-relay:catalog';

/** Tells every replica that the catalog changed, so a new token or channel works at once everywhere. */
export function createRedisChangeNotifier(redisUrl: string): ChangeNotifier {
  const publisher = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  let subscriber: Redis | undefined;
  return {
    async publish(version) {
      if (publisher.status === 'wait') await publisher.connect();
      await publisher.publish(channelName, version);
    },
    async subscribe(onVersion) {
      subscriber = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
      subscriber.on('message', (_channel: string, version: string) => onVersion(version));
      await subscriber.subscribe(channelName);
    },
    async close() {
      publisher.disconnect();
      subscriber?.disconnect();
    },
  };
}
