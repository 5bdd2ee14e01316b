import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecretBox } from '../../src/security/secret-box.js';
import { ChannelsRepository, type ChannelFields } from '../../src/storage/channels-repository.js';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { LogsRepository, type LogRow } from '../../src/storage/logs-repository.js';
import { OptionsRepository } from '../../src/storage/options-repository.js';
import { PricingRepository } from '../../src/storage/pricing-repository.js';
import { markPlaygroundTokens } from '../../src/storage/migrations/008-playground-token-purpose.js';
import { runMigrations } from '../../src/storage/run-migrations.js';
import { TokensRepository, type TokenFields } from '../../src/storage/tokens-repository.js';
import { UsersRepository, type UserFields } from '../../src/storage/users-repository.js';
import { logRow as anyLogRow } from '../support/log-row.js';
import { allDialects, createTestDatabase, type TestDatabase } from '../support/test-databases.js';

const expectedTables = ['channels', 'groups', 'logs', 'options', 'prices', 'quota_reservations', 'tasks', 'tokens', 'users'];
const now = 1_717_000_000_000;
const day = 86_400_000;
const januaryFirst = Date.UTC(2024, 0, 1);

function userFields(username: string, overrides: Partial<UserFields> = {}): UserFields {
  return { username, role: 'user', group: 'default', quota: 1000, unlimitedQuota: false, enabled: true, ...overrides };
}

function tokenFields(userId: number, name: string, overrides: Partial<TokenFields> = {}): TokenFields {
  return {
    userId,
    name,
    group: null,
    remainQuota: 500,
    unlimitedQuota: false,
    modelLimits: null,
    expiresAt: 0,
    enabled: true,
    rateLimit: {},
    ...overrides,
  };
}

function channelFields(name: string, overrides: Partial<ChannelFields> = {}): ChannelFields {
  return {
    name,
    type: 'openai',
    baseUrl: 'https://upstream.example',
    keys: ['sk-upstream-secret-1'],
    models: ['gpt-4o-mini'],
    groups: ['default'],
    priority: 0,
    weight: 1,
    modelMapping: {},
    settings: {},
    status: 'enabled',
    autoDisable: true,
    ...overrides,
  };
}

/** The log rows of these tests: a gpt-4o-mini answer on January 1st through the token "laptop". */
function logRow(overrides: Partial<LogRow>): LogRow {
  return anyLogRow({ request_id: 'req', created_at: januaryFirst, token_name: 'laptop', model: 'gpt-4o-mini', upstream_model: 'gpt-4o-mini', latency_ms: 20, ...overrides });
}

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`storage on ${dialect}`, () => {
    let testDatabase: TestDatabase;
    let handle: DatabaseHandle;
    let tablesBeforeMigration: string[];
    let firstMigrationRun: string[];
    const secrets = createSecretBox('storage-test-secret');

    beforeAll(async () => {
      testDatabase = await createTestDatabase(dialect);
      handle = await createDatabase(testDatabase.url);
      tablesBeforeMigration = (await handle.db.introspection.getTables()).map((table) => table.name);
      firstMigrationRun = await runMigrations(handle.db, handle.dialect);
    });

    afterAll(async () => {
      await handle?.close();
      await testDatabase?.drop();
    });

    describe('migrations', () => {
      it('create every table on an empty database', async () => {
        expect(tablesBeforeMigration).toEqual([]);
        expect(firstMigrationRun).toEqual(['001-initial', '002-ledger-routines', '003-sqlite-reservation-pages', '004-ledger-batch-routine', '005-mysql-ledger-batch', '006-ledger-batch-row-locks', '007-user-session-version', '008-playground-token-purpose', '009-cache-write-1h', '010-tasks', '011-audio-prices', '012-web-search-prices', '013-image-prices', '014-asset-owners', '015-tasks-request-id', '016-priority-tier-prices', '017-wallets-debited', '018-mysql-settle-flags', '019-conversation-owners', '020-conversation-owners-long-ids-and-history', '021-reservation-log-facts', '022-mysql-exact-id-keys', '023-conversation-claim-holders', '024-tasks-user-id', '025-logs-user-id-created-at', '026-logs-user-covering']);
        const tables = (await handle.db.introspection.getTables()).map((table) => table.name);
        expect(tables).toEqual(expect.arrayContaining(expectedTables));
      });

      it('apply nothing when run a second time', async () => {
        expect(await runMigrations(handle.db, handle.dialect)).toEqual([]);
        const tables = (await handle.db.introspection.getTables()).map((table) => table.name);
        expect(tables).toEqual(expect.arrayContaining(expectedTables));
      });
    });

    describe('UsersRepository', () => {
      it('round-trips create, get, getByUsername, list pages, update and delete', async () => {
        const users = new UsersRepository(handle.db, handle.dialect);
        const aliceId = await users.create(userFields('alice', { passwordHash: 'scrypt:x:y', quota: 1234 }), now);
        const bobId = await users.create(userFields('bob', { role: 'admin', group: 'vip', unlimitedQuota: true }), now);
        const carolId = await users.create(userFields('carol', { enabled: false }), now);
        expect(new Set([aliceId, bobId, carolId]).size).toBe(3);

        expect(await users.get(aliceId)).toEqual({
          id: aliceId,
          username: 'alice',
          role: 'user',
          group: 'default',
          quota: 1234,
          unlimitedQuota: false,
          usedQuota: 0,
          requestCount: 0,
          enabled: true,
          sessionVersion: 0,
          createdAt: now,
        });
        expect(await users.getByUsername('bob')).toMatchObject({ id: bobId, role: 'admin', group: 'vip', unlimitedQuota: true });
        expect((await users.get(carolId))?.enabled).toBe(false);
        expect(await users.passwordHashOf('alice')).toEqual({ id: aliceId, passwordHash: 'scrypt:x:y' });
        expect(await users.countByRole('admin')).toBe(1);

        const firstPage = await users.list({ page: 1, pageSize: 2 });
        expect(firstPage).toMatchObject({ total: 3, page: 1, page_size: 2 });
        expect(firstPage.items.map((user) => user.username)).toEqual(['alice', 'bob']);
        const secondPage = await users.list({ page: 2, pageSize: 2 });
        expect(secondPage.items.map((user) => user.username)).toEqual(['carol']);

        expect(await users.update(carolId, { enabled: true, group: 'vip', quota: 7 }, now + 1)).toBe(true);
        expect(await users.get(carolId)).toMatchObject({ enabled: true, group: 'vip', quota: 7 });
        expect(await users.update(999_999, { enabled: true }, now)).toBe(false);

        expect(await users.delete(carolId)).toBe(true);
        expect(await users.get(carolId)).toBeUndefined();
        expect(await users.delete(carolId)).toBe(false);
        expect((await users.listAll()).map((user) => user.username).sort()).toEqual(['alice', 'bob']);
      });

      it('refuses a second user with the same username', async () => {
        const users = new UsersRepository(handle.db, handle.dialect);
        await users.create(userFields('dora'), now);
        await expect(users.create(userFields('dora'), now)).rejects.toThrow();
      });

      it('bumps the session version only when asked to end the sessions', async () => {
        const users = new UsersRepository(handle.db, handle.dialect);
        const id = await users.create(userFields('session-holder'), now);
        await users.update(id, { group: 'vip' }, now + 1);
        expect((await users.get(id))?.sessionVersion).toBe(0);
        await users.update(id, { passwordHash: 'scrypt:new:hash' }, now + 2, { endSessions: true });
        expect(await users.get(id)).toMatchObject({ sessionVersion: 1 });
        expect(await users.endSessions(id, now + 3)).toBe(true);
        expect((await users.get(id))?.sessionVersion).toBe(2);
        expect(await users.endSessions(999_999, now)).toBe(false);
      });

      it('keeps a balance adjustment exact: refused below zero and past Number.MAX_SAFE_INTEGER', async () => {
        const users = new UsersRepository(handle.db, handle.dialect);
        const tokens = new TokensRepository(handle.db, handle.dialect);
        const nearMax = Number.MAX_SAFE_INTEGER - 1;
        const id = await users.create(userFields('near-max-wallet', { quota: nearMax }), now);
        const tokenId = await tokens.create(tokenFields(id, 'near-max', { remainQuota: nearMax }), { hash: '9'.repeat(64), prefix: 'p' }, now);
        expect(await users.adjustQuota(id, 2, now)).toBe(false);
        expect(await tokens.adjustQuota(tokenId, 2, now)).toBe(false);
        expect(await users.adjustQuota(id, 1, now)).toBe(true);
        expect(await tokens.adjustQuota(tokenId, 1, now)).toBe(true);
        expect((await users.get(id))?.quota).toBe(Number.MAX_SAFE_INTEGER);
        expect((await tokens.get(tokenId))?.remainQuota).toBe(Number.MAX_SAFE_INTEGER);
        expect(await users.adjustQuota(id, -Number.MAX_SAFE_INTEGER, now)).toBe(true);
        expect((await users.get(id))?.quota).toBe(0);
        expect(await users.adjustQuota(id, -1, now)).toBe(false);
        // Leave no token behind: the token tests below count every token.
        expect(await tokens.delete(tokenId)).toBe(true);
      });
    });

    describe('TokensRepository', () => {
      it('round-trips model_limits JSON, rate limits and the key hash', async () => {
        const users = new UsersRepository(handle.db, handle.dialect);
        const tokens = new TokensRepository(handle.db, handle.dialect);
        const ownerId = await users.create(userFields('token-owner'), now);
        const otherId = await users.create(userFields('token-other'), now);
        const limitedId = await tokens.create(
          tokenFields(ownerId, 'limited', { modelLimits: ['gpt-4o-mini', 'claude-3-5-haiku'], rateLimit: { rpm: 60, tpm: 200_000 }, group: 'vip', expiresAt: 1_900_000_000 }),
          { hash: 'a'.repeat(64), prefix: 'sk-aaaa…aaaa' },
          now,
        );
        const openId = await tokens.create(tokenFields(ownerId, 'open', { unlimitedQuota: true, enabled: false }), { hash: 'b'.repeat(64), prefix: 'sk-bbbb…bbbb' }, now);
        await tokens.create(tokenFields(otherId, 'other'), { hash: 'c'.repeat(64), prefix: 'sk-cccc…cccc' }, now);

        expect(await tokens.get(limitedId)).toEqual({
          id: limitedId,
          userId: ownerId,
          name: 'limited',
          keyHash: 'a'.repeat(64),
          keyPrefix: 'sk-aaaa…aaaa',
          group: 'vip',
          remainQuota: 500,
          usedQuota: 0,
          unlimitedQuota: false,
          modelLimits: ['gpt-4o-mini', 'claude-3-5-haiku'],
          expiresAt: 1_900_000_000,
          enabled: true,
          rateLimit: { rpm: 60, tpm: 200_000 },
          requestCount: 0,
          createdAt: now,
          purpose: 'api',
        });
        expect(await tokens.get(openId)).toMatchObject({ modelLimits: null, rateLimit: {}, unlimitedQuota: true, enabled: false, group: null });
        expect((await tokens.getByKeyHash('b'.repeat(64)))?.id).toBe(openId);
        expect(await tokens.getByKeyHash('d'.repeat(64))).toBeUndefined();
        expect((await tokens.getByName(ownerId, 'limited'))?.id).toBe(limitedId);
        expect(await tokens.getByName(otherId, 'limited')).toBeUndefined();

        const ownersPage = await tokens.list({ page: 1, pageSize: 1 }, ownerId);
        expect(ownersPage).toMatchObject({ total: 2, page: 1, page_size: 1 });
        expect(ownersPage.items.map((token) => token.name)).toEqual(['limited']);
        expect((await tokens.list({ page: 2, pageSize: 1 }, ownerId)).items.map((token) => token.name)).toEqual(['open']);
        expect((await tokens.list({ page: 1, pageSize: 10 })).total).toBe(3);

        expect(await tokens.update(limitedId, { modelLimits: null, rateLimit: { rpm: 5 }, enabled: false }, now + 1, { hash: 'e'.repeat(64), prefix: 'sk-eeee…eeee' })).toBe(true);
        expect(await tokens.get(limitedId)).toMatchObject({ modelLimits: null, rateLimit: { rpm: 5 }, enabled: false, keyHash: 'e'.repeat(64), keyPrefix: 'sk-eeee…eeee' });
        expect(await tokens.update(limitedId, { modelLimits: [] }, now + 2)).toBe(true);
        expect((await tokens.get(limitedId))?.modelLimits).toEqual([]);

        expect(await tokens.delete(openId)).toBe(true);
        expect(await tokens.get(openId)).toBeUndefined();
        expect(await tokens.delete(openId)).toBe(false);
        expect((await tokens.listAll()).map((token) => token.name).sort()).toEqual(['limited', 'other']);
      });

      it('marks a token made for the playground, and only that one', async () => {
        const users = new UsersRepository(handle.db, handle.dialect);
        const tokens = new TokensRepository(handle.db, handle.dialect);
        const ownerId = await users.create(userFields('playground-owner'), now);
        const playgroundId = await tokens.create(tokenFields(ownerId, 'playground-2', { purpose: 'playground' }), { hash: '7'.repeat(64), prefix: 'p' }, now);
        const apiId = await tokens.create(tokenFields(ownerId, 'playground'), { hash: '8'.repeat(64), prefix: 'p' }, now);
        expect((await tokens.get(playgroundId))?.purpose).toBe('playground');
        expect((await tokens.get(apiId))?.purpose).toBe('api');
        // An update never changes what a token is for.
        await tokens.update(apiId, { name: 'renamed' }, now + 1);
        expect((await tokens.get(apiId))?.purpose).toBe('api');
      });

      it('migration 008 marks the playground tokens earlier versions made, and no look-alike', async () => {
        const users = new UsersRepository(handle.db, handle.dialect);
        const tokens = new TokensRepository(handle.db, handle.dialect);
        const ownerId = await users.create(userFields('old-playground-owner'), now);
        const otherId = await users.create(userFields('old-api-key-owner'), now);
        // As the old route created it (every setting fixed), and an API key an operator named `playground`.
        const madeByRoute = await tokens.create(tokenFields(ownerId, 'playground', { unlimitedQuota: true, enabled: false }), { hash: '5'.repeat(64), prefix: 'p' }, now);
        const lookAlike = await tokens.create(tokenFields(otherId, 'playground', { unlimitedQuota: true, modelLimits: ['gpt-4o'] }), { hash: '6'.repeat(64), prefix: 'p' }, now);
        await markPlaygroundTokens(handle.db as unknown as Kysely<unknown>);
        expect(await tokens.get(madeByRoute)).toMatchObject({ purpose: 'playground', enabled: false });
        expect((await tokens.get(lookAlike))?.purpose).toBe('api');
        await tokens.delete(madeByRoute);
        await tokens.delete(lookAlike);
      });

      it('refuses two tokens with the same key hash or the same name for one user', async () => {
        const users = new UsersRepository(handle.db, handle.dialect);
        const tokens = new TokensRepository(handle.db, handle.dialect);
        const ownerId = await users.create(userFields('duplicate-owner'), now);
        await tokens.create(tokenFields(ownerId, 'laptop'), { hash: 'f'.repeat(64), prefix: 'p' }, now);
        await expect(tokens.create(tokenFields(ownerId, 'phone'), { hash: 'f'.repeat(64), prefix: 'p' }, now)).rejects.toThrow();
        await expect(tokens.create(tokenFields(ownerId, 'laptop'), { hash: '0'.repeat(64), prefix: 'p' }, now)).rejects.toThrow();
      });
    });

    describe('ChannelsRepository', () => {
      it('encrypts keys at rest and decrypts them back', async () => {
        const channels = new ChannelsRepository(handle.db, handle.dialect, secrets);
        const secretKeys = ['sk-live-upstream-key-AAAA', 'sk-live-upstream-key-BBBB'];
        const id = await channels.create(channelFields('encrypted', { keys: secretKeys }), now);

        const raw = await handle.db.selectFrom('channels').select('keys_encrypted').where('id', '=', id).executeTakeFirstOrThrow();
        expect(raw.keys_encrypted).not.toContain('sk-live-upstream-key');
        expect(raw.keys_encrypted).not.toContain(Buffer.from('sk-live-upstream-key').toString('base64').slice(0, 16));
        expect(JSON.parse(secrets.open(raw.keys_encrypted))).toEqual(secretKeys);
        expect((await channels.get(id))?.keys).toEqual(secretKeys);

        await channels.update(id, { keys: ['sk-rotated-key-CCCC'] }, now + 1);
        const rotated = await handle.db.selectFrom('channels').select('keys_encrypted').where('id', '=', id).executeTakeFirstOrThrow();
        expect(rotated.keys_encrypted).not.toContain('sk-rotated-key');
        expect((await channels.get(id))?.keys).toEqual(['sk-rotated-key-CCCC']);
        await channels.delete(id);
      });

      it('round-trips create, get, getByName, list pages, update and delete', async () => {
        const channels = new ChannelsRepository(handle.db, handle.dialect, secrets);
        const firstId = await channels.create(
          channelFields('first', {
            type: 'anthropic',
            models: ['claude-3-5-haiku', 'claude-sonnet-4'],
            groups: ['default', 'vip'],
            priority: 5,
            weight: 3,
            modelMapping: { 'claude-latest': 'claude-sonnet-4' },
            settings: { max_tokens: { 'claude-sonnet-4': 8192 } },
            autoDisable: false,
          }),
          now,
        );
        const secondId = await channels.create(channelFields('second', { status: 'disabled', statusReason: 'operator' }), now);
        const thirdId = await channels.create(channelFields('third'), now);

        expect(await channels.get(firstId)).toEqual({
          id: firstId,
          name: 'first',
          type: 'anthropic',
          baseUrl: 'https://upstream.example',
          keys: ['sk-upstream-secret-1'],
          models: ['claude-3-5-haiku', 'claude-sonnet-4'],
          groups: ['default', 'vip'],
          priority: 5,
          weight: 3,
          modelMapping: { 'claude-latest': 'claude-sonnet-4' },
          settings: { max_tokens: { 'claude-sonnet-4': 8192 } },
          status: 'enabled',
          autoDisable: false,
          statusReason: null,
          usedQuota: 0,
          requestCount: 0,
        });
        expect(await channels.getByName('second')).toMatchObject({ id: secondId, status: 'disabled', statusReason: 'operator' });
        expect(await channels.getByName('missing')).toBeUndefined();

        const firstPage = await channels.list({ page: 1, pageSize: 2 });
        expect(firstPage).toMatchObject({ total: 3, page: 1, page_size: 2 });
        expect(firstPage.items.map((channel) => channel.name)).toEqual(['first', 'second']);
        expect((await channels.list({ page: 2, pageSize: 2 })).items.map((channel) => channel.name)).toEqual(['third']);

        expect(await channels.update(thirdId, { status: 'auto_disabled', statusReason: 'upstream 401', priority: -1, models: ['gpt-4.1'] }, now + 1)).toBe(true);
        expect(await channels.get(thirdId)).toMatchObject({ status: 'auto_disabled', statusReason: 'upstream 401', priority: -1, models: ['gpt-4.1'], keys: ['sk-upstream-secret-1'] });
        expect(await channels.update(999_999, { priority: 1 }, now)).toBe(false);

        expect(await channels.delete(secondId)).toBe(true);
        expect(await channels.get(secondId)).toBeUndefined();
        expect(await channels.delete(secondId)).toBe(false);
        expect((await channels.listAll()).map((channel) => channel.name)).toEqual(['first', 'third']);
      });

      it('cannot read keys sealed under another secret', async () => {
        const channels = new ChannelsRepository(handle.db, handle.dialect, secrets);
        const id = await channels.create(channelFields('other-secret'), now);
        const stranger = new ChannelsRepository(handle.db, handle.dialect, createSecretBox('another-secret'));
        await expect(stranger.get(id)).rejects.toThrow();
        await channels.delete(id);
      });
    });

    describe('PricingRepository', () => {
      it('round-trips prices: insert, list, replace on upsert, delete', async () => {
        const pricing = new PricingRepository(handle.db);
        await pricing.upsertPrice({ model: 'gpt-4o-mini', input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.1875 }, now);
        await pricing.upsertPrice({ model: 'dall-e-3', perCall: 0.04 }, now);
        await pricing.upsertPrice({ model: 'sora-2', perSecond: 0.1 }, now);
        expect(await pricing.listPrices()).toEqual([
          { model: 'dall-e-3', perCall: 0.04 },
          { model: 'gpt-4o-mini', input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.1875 },
          { model: 'sora-2', perSecond: 0.1 },
        ]);

        // An upsert replaces the whole price: fields it omits are cleared.
        await pricing.upsertPrice({ model: 'gpt-4o-mini', input: 0.2, output: 0.8 }, now + 1);
        // The same values again (MySQL reports zero changed rows) must not insert a duplicate.
        await pricing.upsertPrice({ model: 'gpt-4o-mini', input: 0.2, output: 0.8 }, now + 1);
        expect((await pricing.listPrices()).find((price) => price.model === 'gpt-4o-mini')).toEqual({ model: 'gpt-4o-mini', input: 0.2, output: 0.8 });

        expect(await pricing.deletePrice('sora-2')).toBe(true);
        expect(await pricing.deletePrice('sora-2')).toBe(false);
        expect((await pricing.listPrices()).map((price) => price.model)).toEqual(['dall-e-3', 'gpt-4o-mini']);
      });

      it('round-trips groups: insert, update ratio, idempotent upsert, delete', async () => {
        const pricing = new PricingRepository(handle.db);
        await pricing.upsertGroup({ name: 'default', ratio: 1 }, now);
        await pricing.upsertGroup({ name: 'vip', ratio: 0.5 }, now);
        await pricing.upsertGroup({ name: 'vip', ratio: 0.5 }, now);
        expect(await pricing.listGroups()).toEqual([
          { name: 'default', ratio: 1 },
          { name: 'vip', ratio: 0.5 },
        ]);
        await pricing.upsertGroup({ name: 'vip', ratio: 0.25 }, now + 1);
        expect((await pricing.listGroups()).find((group) => group.name === 'vip')?.ratio).toBe(0.25);
        expect(await pricing.deleteGroup('vip')).toBe(true);
        expect(await pricing.deleteGroup('vip')).toBe(false);
        expect(await pricing.listGroups()).toEqual([{ name: 'default', ratio: 1 }]);
      });
    });

    describe('OptionsRepository', () => {
      it('gets, sets, overwrites and lists options', async () => {
        const options = new OptionsRepository(handle.db);
        expect(await options.get('site_name')).toBeUndefined();
        await options.set('site_name', 'Relay');
        await options.set('site_name', 'Unified Relay');
        await options.set('max_body_mb', '64');
        expect(await options.get('site_name')).toBe('Unified Relay');
        expect(await options.all()).toMatchObject({ site_name: 'Unified Relay', max_body_mb: '64' });
      });

      it('setIfAbsent writes only the first value and says which call wrote it', async () => {
        const options = new OptionsRepository(handle.db);
        expect(await options.setIfAbsent('admin_key_hash_test', 'first')).toBe(true);
        expect(await options.setIfAbsent('admin_key_hash_test', 'second')).toBe(false);
        expect(await options.get('admin_key_hash_test')).toBe('first');
        // The connection stays usable after the refused insert (PostgreSQL aborts only a transaction).
        await options.set('after_conflict', 'ok');
        expect(await options.get('after_conflict')).toBe('ok');
      });

      it('setIfAbsent lets exactly one of several concurrent callers win', async () => {
        const options = new OptionsRepository(handle.db);
        const results = await Promise.all(Array.from({ length: 5 }, (_, index) => options.setIfAbsent('race', String(index))));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await options.get('race')).toBe(String(results.indexOf(true)));
      });
    });

    describe('LogsRepository', () => {
      const rows: LogRow[] = [
        logRow({ request_id: 'r1', created_at: januaryFirst + 1_000, user_id: 1, token_id: 10, channel_id: 100, model: 'gpt-4o-mini', status: 200, quota: 100, input_tokens: 10, output_tokens: 5, attempts: '[{"channel":100,"status":200}]', warnings: '["dropped top_k"]' }),
        logRow({ request_id: 'r2', created_at: januaryFirst + 2_000, user_id: 1, token_id: 11, channel_id: 101, model: 'gpt-4o-mini', status: 429, quota: 0, input_tokens: 0, output_tokens: 0, error: 'rate limited' }),
        logRow({ request_id: 'r3', created_at: januaryFirst + 3_000, user_id: 2, token_id: 12, channel_id: 100, model: 'claude-3-5-haiku', status: 200, quota: 300, input_tokens: 30, output_tokens: 15 }),
        logRow({ request_id: 'r4', created_at: januaryFirst + day + 5, user_id: 2, token_id: 12, channel_id: 101, model: 'gpt-4o-mini', status: 200, quota: 50, input_tokens: 7, output_tokens: 3 }),
        logRow({ request_id: 'r5', created_at: januaryFirst + 2 * day, user_id: 3, token_id: 13, channel_id: null, model: null, status: 503, quota: 0, input_tokens: 0, output_tokens: 0 }),
      ];
      const idsOf = (page: { items: { request_id: string }[] }) => page.items.map((item) => item.request_id);
      const all = { page: 1, pageSize: 50 };

      beforeAll(async () => {
        await new LogsRepository(handle.db).insertMany(rows);
        await new LogsRepository(handle.db).insertMany([]);
      });

      it('lists newest first, pages, and parses attempts and warnings', async () => {
        const logs = new LogsRepository(handle.db);
        const everything = await logs.list({}, all);
        expect(idsOf(everything)).toEqual(['r5', 'r4', 'r3', 'r2', 'r1']);
        expect(everything.total).toBe(5);
        const second = await logs.list({}, { page: 2, pageSize: 2 });
        expect(second).toMatchObject({ total: 5, page: 2, page_size: 2 });
        expect(idsOf(second)).toEqual(['r3', 'r2']);
        const first = everything.items.find((item) => item.request_id === 'r1');
        expect(first).toMatchObject({ attempts: [{ channel: 100, status: 200 }], warnings: ['dropped top_k'], quota: 100, created_at: januaryFirst + 1_000, ip: '127.0.0.1' });
        expect(everything.items.find((item) => item.request_id === 'r2')?.error).toBe('rate limited');
      });

      it.each([
        ['from (inclusive)', { from: januaryFirst + 3_000 }, ['r5', 'r4', 'r3']],
        ['to (exclusive)', { to: januaryFirst + 3_000 }, ['r2', 'r1']],
        ['from and to', { from: januaryFirst + 2_000, to: januaryFirst + day + 6 }, ['r4', 'r3', 'r2']],
        ['userId', { userId: 2 }, ['r4', 'r3']],
        ['tokenId', { tokenId: 11 }, ['r2']],
        ['model', { model: 'gpt-4o-mini' }, ['r4', 'r2', 'r1']],
        ['channelId', { channelId: 100 }, ['r3', 'r1']],
        ['status', { status: 200 }, ['r4', 'r3', 'r1']],
        ['requestId', { requestId: 'r5' }, ['r5']],
        ['several at once', { userId: 1, status: 200, model: 'gpt-4o-mini' }, ['r1']],
      ])('filters by %s', async (_name, filter, expected) => {
        const page = await new LogsRepository(handle.db).list(filter, all);
        expect(idsOf(page)).toEqual(expected);
        expect(page.total).toBe(expected.length);
      });

      it('aggregates requests, quota and tokens per model and UTC day', async () => {
        const logs = new LogsRepository(handle.db);
        expect(await logs.aggregateByModelAndDay({})).toEqual([
          { day: '2024-01-01', model: 'claude-3-5-haiku', requests: 1, quota: 300, input_tokens: 30, output_tokens: 15 },
          { day: '2024-01-01', model: 'gpt-4o-mini', requests: 2, quota: 100, input_tokens: 10, output_tokens: 5 },
          { day: '2024-01-02', model: 'gpt-4o-mini', requests: 1, quota: 50, input_tokens: 7, output_tokens: 3 },
          { day: '2024-01-03', model: '', requests: 1, quota: 0, input_tokens: 0, output_tokens: 0 },
        ]);
        expect(await logs.aggregateByModelAndDay({ userId: 2 })).toEqual([
          { day: '2024-01-01', model: 'claude-3-5-haiku', requests: 1, quota: 300, input_tokens: 30, output_tokens: 15 },
          { day: '2024-01-02', model: 'gpt-4o-mini', requests: 1, quota: 50, input_tokens: 7, output_tokens: 3 },
        ]);
        expect(await logs.aggregateByModelAndDay({ from: januaryFirst + day * 10 })).toEqual([]);
      });
    });
  });
}

describe('the embedded SQLite database', () => {
  it('gives its serving connection a 4 MB page cache by default, or the size asked for', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'relay-cache-'));
    const sized = await createDatabase(`sqlite:${join(directory, 'sized.db')}`, { cacheMb: 3, walCheckpoint: false });
    const standard = await createDatabase(`sqlite:${join(directory, 'standard.db')}`, { walCheckpoint: false });
    try {
      // Negative values are KiB; better-sqlite3's own default would be -16000.
      expect(sized.sqliteConnection?.pragma('cache_size', { simple: true })).toBe(-3072);
      expect(standard.sqliteConnection?.pragma('cache_size', { simple: true })).toBe(-4096);
    } finally {
      await sized.close();
      await standard.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
