import { parseArgs } from 'node:util';
import { SettingError } from '../config/setting-error.js';

/** More processes than this on one machine is a typo, not a plan (each worker holds its own pools and caches). */
export const maximumWorkers = 64;

export interface ServeArguments {
  /** Processes sharing the port; 1 = this process serves. */
  workers: number;
}

/**
 * `relay serve [--workers N]` (also `--workers=N`), N else from RELAY_WORKERS: a whole number from 1 to 64
 * in decimal digits. An unknown flag, a flag without its number or a number out of range is a SettingError,
 * so the operator's mistake stops the start instead of silently serving from one process.
 */
export function parseServeArguments(args: string[], env: Record<string, string | undefined>): ServeArguments {
  let values: { workers?: string };
  try {
    ({ values } = parseArgs({ args, options: { workers: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new SettingError(`serve: ${(error as Error).message} (usage: relay serve [--workers N])`);
  }
  if (values.workers !== undefined) return { workers: workerCount(values.workers, '--workers') };
  const fromEnvironment = env.RELAY_WORKERS?.trim();
  if (fromEnvironment === undefined || fromEnvironment === '') return { workers: 1 };
  return { workers: workerCount(fromEnvironment, 'Environment variable RELAY_WORKERS') };
}

function workerCount(raw: string, name: string): number {
  const count = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(count) || count < 1 || count > maximumWorkers) throw new SettingError(`${name} must be an integer from 1 to ${maximumWorkers}, got "${raw}"`);
  return count;
}
