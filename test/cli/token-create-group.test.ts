/**
 * From the misc review: `relay token create --group X` wrote a token in a group that did not exist, which
 * could never authenticate (the admin API refuses such a group with a 400). The CLI now refuses it with a
 * one-line error naming the group and the groups there are, and writes no token.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { PricingRepository } from '../../src/storage/pricing-repository.js';
import { runMigrations } from '../../src/storage/run-migrations.js';
import { TokensRepository } from '../../src/storage/tokens-repository.js';
import { UsersRepository } from '../../src/storage/users-repository.js';
import { cleanEnvironment, runCli } from './support.js';

const cwd = mkdtempSync(join(tmpdir(), 'relay-cli-token-group-'));
const databaseUrl = `sqlite:${join(cwd, 'relay.db')}`;
const env = cleanEnvironment({ DATABASE_URL: databaseUrl, CRYPTO_SECRET: 'cli-token-group', SESSION_SECRET: 'cli-token-group' });

describe('relay token create --group', { timeout: 120_000 }, () => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    // The root user (as the first `serve` makes it) and a `vip` group (as a config file's `groups` makes it).
    database = await createDatabase(databaseUrl);
    await runMigrations(database.db, database.dialect);
    await new UsersRepository(database.db, database.dialect).create({ username: 'root', role: 'root', group: 'default', quota: 0, unlimitedQuota: true, enabled: true }, Date.now());
    await new PricingRepository(database.db).upsertGroup({ name: 'vip', ratio: 0.5 }, Date.now());
  });
  afterAll(async () => {
    await database?.close();
  });

  const tokenNames = async () => (await new TokensRepository(database.db, database.dialect).list({ page: 1, pageSize: 100 })).items.map((token) => token.name).sort();

  it('refuses a group that does not exist in one line, naming it and the groups there are, and writes no token', async () => {
    const result = runCli(['token', 'create', '--name', 'lost', '--group', 'platinum'], { cwd, env });
    expect(result.status).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe('token create: group "platinum" does not exist (groups: default, vip); add it under `groups` in the config file or with POST /api/admin/groups');
    expect(await tokenNames()).toEqual([]);
  });

  it('takes a group that exists, and default, which always does', async () => {
    for (const group of ['vip', 'default']) {
      const result = runCli(['token', 'create', '--name', `in-${group}`, '--group', group], { cwd, env });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^sk-[A-Za-z0-9]{48}\n$/);
    }
    const tokens = (await new TokensRepository(database.db, database.dialect).list({ page: 1, pageSize: 100 })).items;
    expect(Object.fromEntries(tokens.map((token) => [token.name, token.group]))).toEqual({ 'in-vip': 'vip', 'in-default': 'default' });
  });
});
