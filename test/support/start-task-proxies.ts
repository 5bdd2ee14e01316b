import { startFakeMidjourneyUpstream, type FakeMidjourneyUpstream } from '../fakes/fake-midjourney-upstream.js';
import { startFakeSunoUpstream, type FakeSunoUpstream } from '../fakes/fake-suno-upstream.js';
import type { TaskChannel } from './start-task-gateway.js';

interface ProxyOfType {
  midjourney: FakeMidjourneyUpstream;
  suno: FakeSunoUpstream;
}

/** Each type's fake, the prefix of its channels' names, and the key each of the two proxies takes. */
const kinds = {
  midjourney: { start: startFakeMidjourneyUpstream, prefix: 'mj', upKey: 'mj-secret-up', spareKey: 'mj-secret-spare' },
  suno: { start: startFakeSunoUpstream, prefix: 'suno', upKey: 'sk-suno-up', spareKey: 'sk-suno-spare' },
} as const;

export interface TaskProxies<Type extends keyof ProxyOfType> {
  /** Tried first: channel `<prefix>-up`, priority 10, key `mj-secret-up` / `sk-suno-up`. */
  up: ProxyOfType[Type];
  /** The failover: channel `<prefix>-spare`, priority 0, key `mj-secret-spare` / `sk-suno-spare`. */
  spare: ProxyOfType[Type];
  /** The two as channels for `startTaskGateway`. */
  channels: TaskChannel[];
  close(): Promise<void>;
}

/**
 * The two fake proxies most Midjourney and Suno suites run in front of (with `startTaskGateway`): one tried
 * first and a spare. `bearerSpare`: the spare's channel key is written `Bearer <key>`, as operators paste
 * it (a Midjourney channel sends the key alone: mj-secret-headers.ts); `models`: each channel's models
 * (default: every priced model). Starting and closing the gateway stays with the suite.
 */
export async function startTaskProxies<Type extends keyof ProxyOfType>(type: Type, options: { bearerSpare?: boolean; models?: string[] } = {}): Promise<TaskProxies<Type>> {
  const kind = kinds[type];
  const [up, spare] = (await Promise.all([kind.start({ expectedKeys: [kind.upKey] }), kind.start({ expectedKeys: [kind.spareKey] })])) as ProxyOfType[Type][];
  const models = options.models === undefined ? {} : { models: options.models };
  return {
    up: up!,
    spare: spare!,
    channels: [
      { ...models, name: `${kind.prefix}-up`, base_url: up!.url, key: kind.upKey, priority: 10 },
      { ...models, name: `${kind.prefix}-spare`, base_url: spare!.url, key: options.bearerSpare === true ? `Bearer ${kind.spareKey}` : kind.spareKey, priority: 0 },
    ],
    close: async () => {
      await Promise.all([up!.close(), spare!.close()]);
    },
  };
}
