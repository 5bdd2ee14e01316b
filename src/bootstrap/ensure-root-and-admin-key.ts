import { generateApiKey, hashApiKey } from '../security/api-keys.js';
import type { OptionsRepository } from '../storage/options-repository.js';
import type { UsersRepository } from '../storage/users-repository.js';
import { optionKeys } from '../catalog/site-settings.js';

export interface BootstrapOutcome {
  /** Set only on the one start that generated the admin key: it is shown once, never stored in clear. */
  generatedAdminKey: string | undefined;
  createdRoot: boolean;
}

/**
 * First start: create the root user; make sure an admin key exists. A configured key (config file, then
 * RELAY_ADMIN_KEY) always wins and is re-applied at every start, so rotating it is editing one line.
 */
export async function ensureRootAndAdminKey(
  users: UsersRepository,
  options: OptionsRepository,
  configuredAdminKey: string | undefined,
  now: number,
): Promise<BootstrapOutcome> {
  let createdRoot = false;
  if ((await users.countByRole('root')) === 0) {
    try {
      await users.create({ username: 'root', role: 'root', group: 'default', quota: 0, unlimitedQuota: true, enabled: true }, now);
      createdRoot = true;
    } catch (error) {
      // Another gateway process starting at the same moment created it.
      if ((await users.countByRole('root')) === 0) throw error;
    }
  }
  if (configuredAdminKey !== undefined) {
    await options.set(optionKeys.adminKeyHash, hashApiKey(configuredAdminKey));
    return { generatedAdminKey: undefined, createdRoot };
  }
  const generated = generateApiKey();
  const wrote = await options.setIfAbsent(optionKeys.adminKeyHash, hashApiKey(generated));
  return { generatedAdminKey: wrote ? generated : undefined, createdRoot };
}
