/**
 * What the asset ownership suites share: one Seedance asset channel (key `ark-key-000000`) in front of a
 * fake Ark asset upstream, two users of one group (alice and bob) with their keys, a create body, and the
 * HTTP status an SDK call ended with.
 */
export const aliceKey = `sk-${'a'.repeat(48)}`;
export const bobKey = `sk-${'b'.repeat(48)}`;
export const arkKey = 'ark-key-000000';
const seedance = 'doubao-seedance-2-0-260128';

export function assetOwnersConfig(upstreamUrl: string): never {
  return {
    groups: { default: 1 },
    prices: { [seedance]: { per_second: 0.1 } },
    channels: [{ type: 'openai', weight: 1, auto_disable: false, enabled: true, model_mapping: {}, name: 'ark', base_url: upstreamUrl, key: arkKey, models: [seedance], groups: ['default'], priority: 0, settings: {} }],
    users: [
      { username: 'alice', role: 'user', group: 'default', quota: 1_000_000, enabled: true },
      { username: 'bob', role: 'user', group: 'default', quota: 1_000_000, enabled: true },
    ],
    tokens: [
      { name: 'alice-key', user: 'alice', key: aliceKey, quota: 1_000_000, expires_at: 0, enabled: true },
      { name: 'bob-key', user: 'bob', key: bobKey, quota: 1_000_000, expires_at: 0, enabled: true },
    ],
  } as never;
}

/** 200 when the call succeeded, else the status of the SDK's error. */
export async function statusOf(call: Promise<unknown>): Promise<number | undefined> {
  try {
    await call;
    return 200;
  } catch (error) {
    return (error as { status?: number }).status;
  }
}
