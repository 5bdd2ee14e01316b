import { logIn } from '../admin/admin-client.js';
import type { TestGateway } from '../support/start-test-gateway.js';

/**
 * What the self-routes suites share: Alice with two API keys and Bob with one, console users in group
 * `default` with large wallets, and their ids and session cookies once the gateway has them.
 */
export const keys = { aliceA: `sk-${'a'.repeat(48)}`, aliceB: `sk-${'b'.repeat(48)}`, bob: `sk-${'c'.repeat(48)}` };

/** The 1 USD quota of the suites' prices. */
export const quotaPerUnit = 500_000;
/** sora-2 at 0.1 per second, 4 s. */
export const videoCharge = Math.round(0.1 * 4 * quotaPerUnit);

/** The fields of every channel of the suites: in group `default`, enabled, unmapped unless a channel says otherwise. */
export const channelDefaults = { groups: ['default'], priority: 0, weight: 1, enabled: true, auto_disable: false, settings: {}, model_mapping: {} };

/** The config file's `users` and `tokens`: alice (keys alice-a, alice-b) and bob (bob-k). */
export const twoUsersConfig = {
  users: [
    { username: 'alice', password: 'alice-password', role: 'user' as const, group: 'default', quota: 1_000_000_000, enabled: true },
    { username: 'bob', password: 'bob-password', role: 'user' as const, group: 'default', quota: 1_000_000_000, enabled: true },
  ],
  tokens: [
    { name: 'alice-a', user: 'alice', key: keys.aliceA, quota: 1_000_000_000, expires_at: 0, enabled: true },
    { name: 'alice-b', user: 'alice', key: keys.aliceB, quota: 1_000_000_000, expires_at: 0, enabled: true },
    { name: 'bob-k', user: 'bob', key: keys.bob, quota: 1_000_000_000, expires_at: 0, enabled: true },
  ],
};

export interface TwoUsers {
  /** Their user and token ids as the gateway's database holds them. */
  ids: { alice: number; bob: number; aliceA: number; aliceB: number; bobToken: number };
  /** Each one's console session cookie. */
  sessions: { alice: string; bob: string };
}

/** Reads the two users' ids from the gateway's database and logs each in to the console. */
export async function logInTwoUsers(gateway: TestGateway): Promise<TwoUsers> {
  const db = gateway.gateway.services.database.db;
  const users = await db.selectFrom('users').select(['id', 'username']).execute();
  const tokens = await db.selectFrom('tokens').select(['id', 'name']).execute();
  const userId = (username: string) => users.find((user) => user.username === username)?.id ?? 0;
  const tokenId = (name: string) => tokens.find((token) => token.name === name)?.id ?? 0;
  return {
    ids: { alice: userId('alice'), bob: userId('bob'), aliceA: tokenId('alice-a'), aliceB: tokenId('alice-b'), bobToken: tokenId('bob-k') },
    sessions: { alice: await logIn(gateway, 'alice', 'alice-password'), bob: await logIn(gateway, 'bob', 'bob-password') },
  };
}
