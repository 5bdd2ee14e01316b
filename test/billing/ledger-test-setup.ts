import { randomBytes } from 'node:crypto';
import { createQuotaLedger } from '../../src/billing/create-quota-ledger.js';
import type { QuotaLedger } from '../../src/billing/quota-ledger.js';
import { createSecretBox } from '../../src/security/secret-box.js';
import { ChannelsRepository } from '../../src/storage/channels-repository.js';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import type { DialectName } from '../../src/storage/database-schema.js';
import { runMigrations } from '../../src/storage/run-migrations.js';
import { TokensRepository } from '../../src/storage/tokens-repository.js';
import { UsersRepository } from '../../src/storage/users-repository.js';
import { createTestDatabase, type TestDatabase } from '../support/test-databases.js';

/** A migrated database of its own, with helpers to create the rows a ledger draws on and read them back. */
export interface LedgerDatabase {
  handle: DatabaseHandle;
  url: string;
  users: UsersRepository;
  tokens: TokensRepository;
  channels: ChannelsRepository;
  ledger(owner?: string): QuotaLedger;
  /** A user with a token; `null` quota means unlimited. */
  createAccount(quota: { user: number | null; token: number | null }): Promise<{ userId: number; tokenId: number }>;
  createChannel(): Promise<number>;
  /** Another independent handle (its own pool) on the same database, as a second process would have. */
  openAnotherHandle(): Promise<DatabaseHandle>;
  close(): Promise<void>;
}

const now = 1_750_000_000_000;

export async function openLedgerDatabase(dialect: DialectName): Promise<LedgerDatabase> {
  const database: TestDatabase = await createTestDatabase(dialect);
  const handle = await createDatabase(database.url);
  await runMigrations(handle.db, handle.dialect);
  const extraHandles: DatabaseHandle[] = [];
  const users = new UsersRepository(handle.db, handle.dialect);
  const tokens = new TokensRepository(handle.db, handle.dialect);
  const channels = new ChannelsRepository(handle.db, handle.dialect, createSecretBox('ledger-test-secret'));
  let accounts = 0;

  return {
    handle,
    url: database.url,
    users,
    tokens,
    channels,
    ledger: (owner = 'node-a') => createQuotaLedger(handle, owner),
    async createAccount(quota) {
      accounts += 1;
      const userId = await users.create(
        { username: `user-${accounts}`, role: 'user', group: 'default', quota: quota.user ?? 0, unlimitedQuota: quota.user === null, enabled: true },
        now,
      );
      const tokenId = await tokens.create(
        {
          userId,
          name: `token-${accounts}`,
          group: null,
          remainQuota: quota.token ?? 0,
          unlimitedQuota: quota.token === null,
          modelLimits: null,
          expiresAt: 0,
          enabled: true,
          rateLimit: {},
        },
        { hash: randomBytes(16).toString('hex'), prefix: 'sk-test' },
        now,
      );
      return { userId, tokenId };
    },
    async createChannel() {
      return channels.create(
        {
          name: `channel-${randomBytes(4).toString('hex')}`,
          type: 'openai',
          baseUrl: 'https://upstream.invalid/v1',
          keys: ['sk-upstream'],
          models: ['gpt-4o'],
          groups: ['default'],
          priority: 0,
          weight: 1,
          modelMapping: {},
          settings: {},
          status: 'enabled',
          autoDisable: true,
        },
        now,
      );
    },
    async openAnotherHandle() {
      const extra = await createDatabase(database.url);
      extraHandles.push(extra);
      return extra;
    },
    async close() {
      for (const extra of extraHandles) await extra.close();
      await handle.close();
      if (dialect === 'postgres') await waitUntilDisconnected(database.url);
      await database.drop();
    },
  };
}

/**
 * pg-pool's `end()` resolves before its clients' sockets have closed. `DROP DATABASE … WITH (FORCE)`
 * would then kill those backends, and the FATAL reaches a pool that no longer listens: an unhandled
 * error that fails the run. So wait until the server sees no other connection to the database.
 */
async function waitUntilDisconnected(url: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const { rows } = await client.query<{ others: number }>(
        'select count(*)::int as others from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      if (rows[0]?.others === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await client.end();
  }
}
