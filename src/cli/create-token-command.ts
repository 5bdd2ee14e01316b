import { parseArgs } from 'node:util';
import type { Environment } from '../config/read-environment.js';
import { generateApiKey, hashApiKey, visiblePrefixOf } from '../security/api-keys.js';
import { createDatabase } from '../storage/create-database.js';
import { OptionsRepository } from '../storage/options-repository.js';
import { runMigrations } from '../storage/run-migrations.js';
import { TokensRepository } from '../storage/tokens-repository.js';
import { UsersRepository } from '../storage/users-repository.js';
import { optionKeys } from '../catalog/site-settings.js';
import { randomUUID } from 'node:crypto';

/** `relay token create`: writes the token and bumps the catalog version so running gateways pick it up. */
export async function createTokenCommand(environment: Environment, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      user: { type: 'string', default: 'root' },
      name: { type: 'string' },
      quota: { type: 'string' },
      unlimited: { type: 'boolean', default: false },
      group: { type: 'string' },
      models: { type: 'string' },
    },
  });
  if (values.name === undefined) throw new Error('token create needs --name');
  const quota = values.quota === undefined ? 0 : Number(values.quota);
  if (!Number.isInteger(quota) || quota < 0) throw new Error('--quota must be a non-negative integer');
  const database = await createDatabase(environment.databaseUrl);
  try {
    await runMigrations(database.db, database.dialect);
    const user = await new UsersRepository(database.db, database.dialect).getByUsername(values.user ?? 'root');
    if (user === undefined) throw new Error(`user "${values.user}" does not exist`);
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
