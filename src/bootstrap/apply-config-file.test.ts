import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allDialects, createTestDatabase, type TestDatabase } from '../../test/support/test-databases.js';
import { siteSettingsFromOptions } from '../catalog/site-settings.js';
import type { ConfigFile } from '../config/config-file-schema.js';
import { parseConfigText } from '../config/load-config-file.js';
import { hashApiKey } from '../security/api-keys.js';
import { verifyPassword } from '../security/passwords.js';
import { createSecretBox } from '../security/secret-box.js';
import { ChannelsRepository } from '../storage/channels-repository.js';
import { createDatabase, type DatabaseHandle } from '../storage/create-database.js';
import type { Database } from '../storage/database-schema.js';
import { OptionsRepository } from '../storage/options-repository.js';
import { PricingRepository } from '../storage/pricing-repository.js';
import { runMigrations } from '../storage/run-migrations.js';
import { TokensRepository } from '../storage/tokens-repository.js';
import { UsersRepository } from '../storage/users-repository.js';
import { applyConfigFile, type ConfigRepositories } from './apply-config-file.js';
import { ensureRootAndAdminKey } from './ensure-root-and-admin-key.js';

const aliceKey = `sk-${'A'.repeat(48)}`;

const configText = `
quota_per_unit: 250000
max_body_mb: 8
retry_times: 3
allow_unpriced_models: true
log_retention_days: 30
groups: { default: 1, vip: 0.5 }
prices:
  gpt-4o-mini: { input: 0.15, output: 0.6 }
  dall-e-3: { per_call: 0.04 }
  claude-sonnet-4-5: { input: 3, cache_write: 3.75, cache_write_1h: 6 }
  gpt-realtime: { input: 4, output: 16, audio_input: 32, audio_output: 64 }
  gemini-image: { input: 2, output: 12, image_input: 4, image_output: 120 }
channels:
  - { name: openai-main, type: openai, base_url: "https://api.openai.com/", key: sk-upstream-1, models: [gpt-4o-mini], priority: 2 }
  - { name: flaky, type: openai, base_url: "https://flaky.example", keys: [sk-f1, sk-f2], models: [gpt-4o-mini] }
users:
  - { username: alice, password: alice-password, group: vip, quota: 1000 }
  - { username: bob, role: admin }
tokens:
  - { name: alice-laptop, user: alice, key: ${aliceKey}, quota: 500, model_limits: [gpt-4o-mini], rate_limit: { rpm: 60 } }
  - { name: alice-phone, user: alice, quota: 100 }
  - { name: root-ops, unlimited_quota: true }
`;

/** Every row the config touches, without update times and with channel keys decrypted (ciphertext is re-sealed). */
async function rowsOf(db: Database, channels: ChannelsRepository) {
  const strip = <T extends { updated_at?: unknown }>(rows: T[]) => rows.map(({ updated_at: _ignored, ...rest }) => rest);
  return {
    users: strip(await db.selectFrom('users').selectAll().orderBy('id').execute()),
    tokens: strip(await db.selectFrom('tokens').selectAll().orderBy('id').execute()),
    channels: (await channels.listAll()).map((channel) => ({ ...channel })),
    prices: strip(await db.selectFrom('prices').selectAll().orderBy('model').execute()),
    groups: strip(await db.selectFrom('groups').selectAll().orderBy('name').execute()),
    options: await db.selectFrom('options').selectAll().orderBy('key').execute(),
  };
}

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`applyConfigFile on ${dialect}`, () => {
    let testDatabase: TestDatabase;
    let handle: DatabaseHandle;
    let repositories: ConfigRepositories;
    const config: ConfigFile = parseConfigText(configText, 'relay.yaml');

    beforeAll(async () => {
      testDatabase = await createTestDatabase(dialect);
      handle = await createDatabase(testDatabase.url);
      await runMigrations(handle.db, handle.dialect);
      repositories = {
        users: new UsersRepository(handle.db, handle.dialect),
        tokens: new TokensRepository(handle.db, handle.dialect),
        channels: new ChannelsRepository(handle.db, handle.dialect, createSecretBox('apply-config-test')),
        pricing: new PricingRepository(handle.db),
        options: new OptionsRepository(handle.db),
      };
      await ensureRootAndAdminKey(repositories.users, repositories.options, 'sk-configured-admin', 1_000);
    });

    afterAll(async () => {
      await handle?.close();
      await testDatabase?.drop();
    });

    it('creates what the file describes on the first apply', async () => {
      const generated = await applyConfigFile(config, repositories, 2_000);

      // Keys are generated (and returned to be printed) only for the tokens that have none in the file.
      expect(generated.map(({ name, user }) => ({ name, user }))).toEqual([
        { name: 'alice-phone', user: 'alice' },
        { name: 'root-ops', user: 'root' },
      ]);
      for (const { key } of generated) expect(key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
      const alice = await repositories.users.getByUsername('alice');
      expect(alice).toMatchObject({ group: 'vip', quota: 1000, unlimitedQuota: false, role: 'user' });
      expect(await verifyPassword('alice-password', (await repositories.users.passwordHashOf('alice'))?.passwordHash ?? null)).toBe(true);
      expect(await repositories.users.getByUsername('bob')).toMatchObject({ role: 'admin', unlimitedQuota: true });

      const phone = await repositories.tokens.getByKeyHash(hashApiKey(generated[0]?.key ?? ''));
      expect(phone).toMatchObject({ name: 'alice-phone', userId: alice?.id, remainQuota: 100 });
      const laptop = await repositories.tokens.getByKeyHash(hashApiKey(aliceKey));
      expect(laptop).toMatchObject({ name: 'alice-laptop', remainQuota: 500, modelLimits: ['gpt-4o-mini'], rateLimit: { rpm: 60 }, unlimitedQuota: false });
      const root = (await repositories.users.listAll()).find((user) => user.role === 'root');
      expect(await repositories.tokens.getByName(root?.id ?? -1, 'root-ops')).toMatchObject({ unlimitedQuota: true });

      expect(await repositories.channels.getByName('openai-main')).toMatchObject({ baseUrl: 'https://api.openai.com', keys: ['sk-upstream-1'], priority: 2, groups: ['default'] });
      expect((await repositories.channels.getByName('flaky'))?.keys).toEqual(['sk-f1', 'sk-f2']);
      expect(await repositories.pricing.listPrices()).toEqual([
        { model: 'claude-sonnet-4-5', input: 3, cacheWrite: 3.75, cacheWrite1h: 6 },
        { model: 'dall-e-3', perCall: 0.04 },
        { model: 'gemini-image', input: 2, output: 12, imageInput: 4, imageOutput: 120 },
        { model: 'gpt-4o-mini', input: 0.15, output: 0.6 },
        { model: 'gpt-realtime', input: 4, output: 16, audioInput: 32, audioOutput: 64 },
      ]);
      expect(await repositories.pricing.listGroups()).toEqual([
        { name: 'default', ratio: 1 },
        { name: 'vip', ratio: 0.5 },
      ]);
      expect(await repositories.options.all()).toMatchObject({ quota_per_unit: '250000', max_body_mb: '8', retry_times: '3', allow_unpriced_models: 'true', log_retention_days: '30' });
      expect(siteSettingsFromOptions(await repositories.options.all()).logRetentionDays).toBe(30);
    });

    it('changes nothing, deletes nothing, refills nothing and prints no key when applied again', async () => {
      // Rows that the file does not mention, and state that changed since the first start.
      const outsiderId = await repositories.users.create({ username: 'outsider', role: 'user', group: 'default', quota: 5, unlimitedQuota: false, enabled: true }, 3_000);
      await repositories.channels.create(
        { name: 'added-by-admin', type: 'openai', baseUrl: 'https://x.example', keys: ['k'], models: ['m'], groups: ['default'], priority: 0, weight: 1, modelMapping: {}, settings: {}, status: 'enabled', autoDisable: true },
        3_000,
      );
      await repositories.tokens.create(
        { userId: outsiderId, name: 'outsider-token', group: null, remainQuota: 1, unlimitedQuota: false, modelLimits: null, expiresAt: 0, enabled: true, rateLimit: {} },
        { hash: 'f'.repeat(64), prefix: 'sk-ffff' },
        3_000,
      );
      await handle.db.updateTable('users').set({ quota: 400 }).where('username', '=', 'alice').execute();
      await handle.db.updateTable('tokens').set({ remain_quota: 7 }).where('name', '=', 'alice-laptop').execute();
      const flaky = await repositories.channels.getByName('flaky');
      await repositories.channels.update(flaky?.id ?? -1, { status: 'auto_disabled', statusReason: 'upstream 401' }, 3_000);
      const before = await rowsOf(handle.db, repositories.channels);

      expect(await applyConfigFile(config, repositories, 4_000)).toEqual([]);
      expect(await rowsOf(handle.db, repositories.channels)).toEqual(before);

      expect(await applyConfigFile(config, repositories, 4_000)).toEqual([]);
      expect(await rowsOf(handle.db, repositories.channels)).toEqual(before);
      expect((await repositories.users.getByUsername('alice'))?.quota).toBe(400);
      expect((await repositories.channels.getByName('flaky'))?.status).toBe('auto_disabled');
    });

    it('applies an edited file as an update of the rows it names', async () => {
      const edited = parseConfigText(
        configText
          .replace('models: [gpt-4o-mini], priority: 2', 'models: [gpt-4o-mini, gpt-4.1], priority: 9')
          .replace('password: alice-password', 'password: new-password')
          .replace('vip: 0.5', 'vip: 0.25'),
        'relay.yaml',
      );
      const tokensBefore = await repositories.tokens.listAll();
      expect(await applyConfigFile(edited, repositories, 5_000)).toEqual([]);

      expect(await repositories.channels.getByName('openai-main')).toMatchObject({ priority: 9, models: ['gpt-4o-mini', 'gpt-4.1'] });
      expect(await verifyPassword('new-password', (await repositories.users.passwordHashOf('alice'))?.passwordHash ?? null)).toBe(true);
      expect((await repositories.pricing.listGroups()).find((group) => group.name === 'vip')?.ratio).toBe(0.25);
      expect((await repositories.tokens.listAll()).map((token) => [token.id, token.keyHash])).toEqual(tokensBefore.map((token) => [token.id, token.keyHash]));
    });

    it('refuses a token whose user does not exist', async () => {
      const broken = parseConfigText('tokens:\n  - { name: orphan, user: nobody }\n', 'relay.yaml');
      await expect(applyConfigFile(broken, repositories, 6_000)).rejects.toThrow(/nobody/);
    });
  });
}
