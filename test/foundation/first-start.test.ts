import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/config-file-schema.js';
import { readEnvironment } from '../../src/config/read-environment.js';
import { startGateway, type Gateway } from '../../src/main.js';
import { hashApiKey } from '../../src/security/api-keys.js';
import { allDialects, createTestDatabase, type TestDatabase } from '../support/test-databases.js';

const configuredKey = `sk-${'C'.repeat(48)}`;
const environmentKey = `sk-${'E'.repeat(48)}`;

interface Started {
  gateway: Gateway;
  announced: string[];
}

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`first start on ${dialect}`, () => {
    let database: TestDatabase;
    const running: Gateway[] = [];

    async function start(options: { env?: Record<string, string>; config?: ConfigFile } = {}): Promise<Started> {
      const announced: string[] = [];
      const environment = readEnvironment({
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        LOG_LEVEL: 'silent',
        CRYPTO_SECRET: 'first-start-secret',
        SYNC_FREQUENCY: '0',
        ...options.env,
      });
      const gateway = await startGateway({ environment, ...(options.config === undefined ? {} : { config: options.config }), announce: (line) => announced.push(line) });
      running.push(gateway);
      return { gateway, announced };
    }

    async function stop(gateway: Gateway): Promise<void> {
      running.splice(running.indexOf(gateway), 1);
      await gateway.close();
    }

    async function adminStatus(gateway: Gateway, key: string): Promise<number> {
      const response = await fetch(`${gateway.url}/api/admin/channels`, { headers: { authorization: `Bearer ${key}` } });
      await response.body?.cancel();
      return response.status;
    }

    async function storedAdminKeyHash(gateway: Gateway): Promise<string | undefined> {
      return gateway.services.repositories.options.get('admin_key_hash');
    }

    beforeEach(async () => {
      database = await createTestDatabase(dialect);
    });

    afterEach(async () => {
      for (const gateway of running.splice(0)) await gateway.close();
      await database.drop();
    });

    it('creates the root user and announces a generated admin key once, with a usage line and how to make an API key', async () => {
      const first = await start();

      expect(first.announced).toHaveLength(3);
      const key = /(sk-[A-Za-z0-9]{48})/.exec(first.announced[0] ?? '')?.[1];
      expect(key).toBeDefined();
      expect(first.announced[0]).toMatch(/admin key/i);
      expect(first.announced[1]).toContain(`Authorization: Bearer ${key}`);
      expect(first.announced[1]).toContain(`${first.gateway.url}/api/admin/`);
      // The admin key opens /api/admin only: the newcomer is told how to make a key for /v1.
      expect(first.announced[2]).toContain('relay token create --name');
      expect(first.announced[2]).toContain('POST /api/admin/tokens');

      const root = await first.gateway.services.repositories.users.getByUsername('root');
      expect(root).toMatchObject({ role: 'root', enabled: true, unlimitedQuota: true });
      expect(await storedAdminKeyHash(first.gateway)).toBe(hashApiKey(key ?? ''));
      expect(first.gateway.services.catalog.snapshot.settings.adminKeyHash).toBe(hashApiKey(key ?? ''));
      expect(await adminStatus(first.gateway, key ?? '')).toBe(200);
      // Only the hash is kept.
      const options = await first.gateway.services.repositories.options.all();
      expect(JSON.stringify(options)).not.toContain(key);
      await stop(first.gateway);

      const second = await start();
      expect(second.announced).toEqual([]);
      expect(await storedAdminKeyHash(second.gateway)).toBe(hashApiKey(key ?? ''));
      expect(await second.gateway.services.repositories.users.countByRole('root')).toBe(1);
      expect(await adminStatus(second.gateway, key ?? '')).toBe(200);
    });

    // Replicas share PostgreSQL or MySQL; a SQLite file belongs to one process.
    if (dialect !== 'sqlite') {
      it('announces one key when two replicas start at once on an empty database', async () => {
        const [left, right] = await Promise.all([start(), start()]);
        const announcedKeys = [...left.announced, ...right.announced].filter((line) => /admin key/i.test(line));
        expect(announcedKeys).toHaveLength(1);
        const key = /(sk-[A-Za-z0-9]{48})/.exec(announcedKeys[0] ?? '')?.[1];
        expect(await storedAdminKeyHash(left.gateway)).toBe(hashApiKey(key ?? ''));
        expect(await left.gateway.services.repositories.users.countByRole('root')).toBe(1);
      });
    }

    it('generates nothing when admin_key is configured, and stores that key’s hash', async () => {
      const { gateway, announced } = await start({ config: { admin_key: configuredKey } });
      expect(announced).toEqual([]);
      expect(await storedAdminKeyHash(gateway)).toBe(hashApiKey(configuredKey));
      expect(await gateway.services.repositories.users.countByRole('root')).toBe(1);
      expect(await adminStatus(gateway, configuredKey)).toBe(200);
      expect(await adminStatus(gateway, environmentKey)).toBe(401);
    });

    it('uses RELAY_ADMIN_KEY when the config file has no admin_key', async () => {
      const { gateway, announced } = await start({ env: { RELAY_ADMIN_KEY: environmentKey } });
      expect(announced).toEqual([]);
      expect(await storedAdminKeyHash(gateway)).toBe(hashApiKey(environmentKey));
      expect(await adminStatus(gateway, environmentKey)).toBe(200);
    });

    it('prefers the config file’s admin_key over RELAY_ADMIN_KEY', async () => {
      const { gateway } = await start({ env: { RELAY_ADMIN_KEY: environmentKey }, config: { admin_key: configuredKey } });
      expect(await storedAdminKeyHash(gateway)).toBe(hashApiKey(configuredKey));
    });

    it('replaces a generated key with a configured one on the next start (rotation is one line)', async () => {
      const first = await start();
      expect(first.announced).toHaveLength(3);
      await stop(first.gateway);

      const second = await start({ config: { admin_key: configuredKey } });
      expect(second.announced).toEqual([]);
      expect(await storedAdminKeyHash(second.gateway)).toBe(hashApiKey(configuredKey));
      expect(await adminStatus(second.gateway, configuredKey)).toBe(200);
      const generatedKey = /(sk-[A-Za-z0-9]{48})/.exec(first.announced[0] ?? '')?.[1] ?? '';
      expect(await adminStatus(second.gateway, generatedKey)).toBe(401);
    });

    it('announces a generated token key on the first start only', async () => {
      const config: ConfigFile = { admin_key: configuredKey, tokens: [{ name: 'ops', expires_at: 0, enabled: true }] };
      const first = await start({ config });
      expect(first.announced).toHaveLength(1);
      const key = /(sk-[A-Za-z0-9]{48})/.exec(first.announced[0] ?? '')?.[1];
      expect(first.announced[0]).toContain('"ops"');
      expect(first.gateway.services.catalog.snapshot.tokensByHash.has(hashApiKey(key ?? ''))).toBe(true);
      await stop(first.gateway);

      const second = await start({ config });
      expect(second.announced).toEqual([]);
      expect(second.gateway.services.catalog.snapshot.tokensByHash.has(hashApiKey(key ?? ''))).toBe(true);
    });
  });
}
