import { randomBytes } from 'node:crypto';
import { optionKeys } from '../catalog/site-settings.js';
import type { OptionsRepository } from '../storage/options-repository.js';

/**
 * The secret that signs console session cookies. SESSION_SECRET when set; otherwise one generated at the
 * first start and kept in the options table, so that every worker and replica on the database reads the
 * same one. A built-in default would let anyone who reads the source sign a root session.
 */
export async function ensureSessionSecret(options: OptionsRepository, configured: string | undefined): Promise<string> {
  if (configured !== undefined) return configured;
  // Several processes starting on an empty database: the first insert wins, every one reads it back.
  await options.setIfAbsent(optionKeys.sessionSecret, randomBytes(32).toString('base64url'));
  const stored = await options.get(optionKeys.sessionSecret);
  if (stored === undefined || stored === '') throw new Error('the generated session secret could not be read back from the options table');
  return stored;
}
