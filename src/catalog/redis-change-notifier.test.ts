import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChangeNotifier } from './catalog.js';
import { catalogChannelName, createRedisChangeNotifier } from './redis-change-notifier.js';

const redisUrl = process.env.RELAY_TEST_REDIS_URL;

/** The URL on logical database `db` (this file uses 13 and 14, which no other test names). */
function onDatabase(db: number): string {
  const url = new URL(redisUrl ?? 'redis://127.0.0.1:6379');
  url.pathname = `/${db}`;
  return url.toString();
}

describe('catalogChannelName', () => {
  it('names the logical database', () => {
    expect(catalogChannelName(0)).toBe('unified-relay:catalog:0');
    expect(catalogChannelName(13)).not.toBe(catalogChannelName(14));
  });
});

describe.skipIf(redisUrl === undefined)('createRedisChangeNotifier', () => {
  const notifiers: ChangeNotifier[] = [];
  afterAll(async () => {
    for (const notifier of notifiers) await notifier.close();
  });

  async function listening(db: number, onResubscribed: () => void = () => undefined): Promise<string[]> {
    const notifier = createRedisChangeNotifier(onDatabase(db));
    notifiers.push(notifier);
    const heard: string[] = [];
    await notifier.subscribe((version) => heard.push(version), onResubscribed);
    return heard;
  }

  it('reaches the replicas on its own logical database and not those on another', async () => {
    const sameDatabase = await listening(13);
    const otherDatabase = await listening(14);
    const publisher = createRedisChangeNotifier(onDatabase(13));
    notifiers.push(publisher);
    const version = `v-${Date.now()}`;
    await publisher.publish(version);
    for (let waited = 0; waited < 2000 && !sameDatabase.includes(version); waited += 20) await sleep(20);
    expect(sameDatabase).toContain(version);
    // Delivery to the other database, were it subscribed to the same channel, would come with the first.
    await sleep(100);
    expect(otherDatabase).not.toContain(version);
  });

  // From the inflight audit: what is published while a subscriber reconnects is lost to it, so the
  // catalog must hear that it is back (and then read the stored version).
  it('says when a dropped subscription is back, and hears what is published after that', async () => {
    let resubscribed = 0;
    const heard = await listening(13, () => (resubscribed += 1));
    const control = new Redis(onDatabase(13));
    try {
      const subscribers = String(await control.call('client', 'list'))
        .split('\n')
        .filter((line) => line.includes(' db=13 ') && /\bsub=[1-9]/.test(line));
      expect(subscribers.length).toBeGreaterThan(0);
      for (const line of subscribers) await control.call('client', 'kill', 'id', /id=(\d+)/.exec(line)![1]!);
      for (let waited = 0; waited < 3000 && resubscribed === 0; waited += 20) await sleep(20);
      expect(resubscribed).toBe(1);
      const version = `v-back-${Date.now()}`;
      await control.publish(catalogChannelName(13), version);
      for (let waited = 0; waited < 2000 && !heard.includes(version); waited += 20) await sleep(20);
      expect(heard).toContain(version);
    } finally {
      control.disconnect();
    }
  });
});
