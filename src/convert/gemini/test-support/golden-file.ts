import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The expected text of a golden file. With UPDATE_GOLDEN=1 the file is rewritten with `actual` first, so
 * the comparison passes and `git diff` shows what changed; read every rewritten file before committing.
 */
export function readGolden(path: string, actual: string): string {
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
  }
  return existsSync(path) ? readFileSync(path, 'utf8') : `(missing golden file ${path}; run with UPDATE_GOLDEN=1)`;
}

/** One JSON value per line. */
export function toJsonLines(values: unknown[]): string {
  return values.map((value) => `${JSON.stringify(value)}\n`).join('');
}
