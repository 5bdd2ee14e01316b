import { parseArgs } from 'node:util';
import type { Environment } from '../config/read-environment.js';
import { generateApiKey, hashApiKey, visiblePrefixOf } from '../security/api-keys.js';
import { createDatabase } from '../storage/create-database.js';
import { OptionsRepository } from '../storage/options-repository.js';
import { PricingRepository } from '../storage/pricing-repository.js';
import { runMigrations } from '../storage/run-migrations.js';
import { TokensRepository } from '../storage/tokens-repository.js';
import { UsersRepository } from '../storage/users-repository.js';
import { optionKeys } from '../catalog/site-settings.js';
import { randomUUID } from 'node:crypto';
import { SettingError } from '../config/setting-error.js';

/** `relay token create`: writes the token and bumps the catalog version so running gateways pick it up. */
export async function createTokenCommand(environment: Environment, args: string[]): Promise<number> {
  const values = parseTokenCreateArgs(args);
  if (values.name === undefined) throw new SettingError('token create needs --name NAME');
  if (values.unlimited === true && values.quota !== undefined) throw new SettingError('token create takes --quota N or --unlimited, not both');
  const quota = values.quota === undefined ? 0 : quotaArgument(values.quota);
  const database = await createDatabase(environment.databaseUrl);
  try {
    await runMigrations(database.db, database.dialect);
    const user = await new UsersRepository(database.db, database.dialect).getByUsername(values.user ?? 'root');
    if (user === undefined) throw new SettingError(`token create: user "${values.user}" does not exist (--user defaults to root)`);
    if (values.group !== undefined) await refuseUnknownGroup(new PricingRepository(database.db), values.group);
    const key = generateApiKey();
    await new TokensRepository(database.db, database.dialect).create(
      {
        userId: user.id,
        name: values.name,
        group: values.group ?? null,
        remainQuota: quota,
        unlimitedQuota: values.unlimited === true || values.quota === undefined,
        modelLimits: values.models === undefined ? null : values.models.split(',').map((model) => model.trim()).filter(Boolean),
        expiresAt: 0,
        enabled: true,
        rateLimit: {},
      },
      { hash: hashApiKey(key), prefix: visiblePrefixOf(key) },
      Date.now(),
    );
    const version = randomUUID();
    await new OptionsRepository(database.db).set(optionKeys.catalogVersion, version);
    // Running gateways poll the version; with Redis they hear of it at once, as of an admin API change.
    if (environment.redisUrl !== undefined) {
      const notifier = (await import('../catalog/redis-change-notifier.js')).createRedisChangeNotifier(environment.redisUrl);
      try {
        await notifier.publish(version);
      } finally {
        await notifier.close();
      }
    }
    process.stdout.write(`${key}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

/**
 * A token in a group that does not exist could never authenticate: refused as the admin API refuses it.
 * `default` always exists (the catalog adds it); the others are the config file's `groups` (applied at
 * start) and those made with the admin API.
 */
async function refuseUnknownGroup(pricing: PricingRepository, group: string): Promise<void> {
  const known = ['default', ...(await pricing.listGroups()).map((stored) => stored.name).filter((name) => name !== 'default')];
  if (known.includes(group)) return;
  throw new SettingError(`token create: group "${group}" does not exist (groups: ${known.join(', ')}); add it under \`groups\` in the config file or with POST /api/admin/groups`);
}

/** parseArgs throws a TypeError for an unknown option or a missing value: an operator's mistake, said plainly. */
function parseTokenCreateArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        user: { type: 'string', default: 'root' },
        name: { type: 'string' },
        quota: { type: 'string' },
        unlimited: { type: 'boolean', default: false },
        group: { type: 'string' },
        models: { type: 'string' },
      },
    }).values;
  } catch (error) {
    throw new SettingError(`token create: ${(error as Error).message}`);
  }
}

/** A balance is written in decimal digits and stays exact in a JavaScript number (`0x10`, `1e3` and 2^53 + 1 are refused). */
function quotaArgument(raw: string): number {
  const quota = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(quota)) throw new SettingError(`--quota must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER} in decimal digits, got "${raw}"`);
  return quota;
}
