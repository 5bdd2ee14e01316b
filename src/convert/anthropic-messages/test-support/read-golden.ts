import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const goldenDirectory = join(dirname(fileURLToPath(import.meta.url)), '..', '__golden__');

/**
 * The expected text of golden file `name`. With UPDATE_GOLDEN=1 the file is first rewritten with `actual`
 * (read the diff before committing it: a golden that freezes a bug is worse than none).
 */
export function readGolden(name: string, actual: string): string {
  const path = join(goldenDirectory, name);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(goldenDirectory, { recursive: true });
    writeFileSync(path, actual);
  }
  if (!existsSync(path)) throw new Error(`golden file ${name} is missing: run with UPDATE_GOLDEN=1 and review it`);
  return readFileSync(path, 'utf8');
}

/** One JSON value per line. */
export const toJsonLines = (values: readonly unknown[]): string => values.map((value) => `${JSON.stringify(value)}\n`).join('');
export const toPrettyJson = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
