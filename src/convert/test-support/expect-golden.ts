import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';

/**
 * Compares `actual` with the golden file `name` of `goldenFolder` (a converter's `__golden__/`) exactly;
 * `UPDATE_GOLDEN=1` rewrites the file instead (read the diff before committing: a golden that freezes a
 * bug is worse than none).
 */
export function expectGolden(goldenFolder: URL, name: string, actual: string): void {
  const file = new URL(name, goldenFolder);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(new URL('.', file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  if (!existsSync(file)) throw new Error(`golden file ${name} is missing: run with UPDATE_GOLDEN=1, then read it`);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

/** One JSON value per line, newline-terminated. */
export function toJsonLines(values: readonly unknown[]): string {
  return values.map((value) => `${JSON.stringify(value)}\n`).join('');
}

/** Pretty JSON with a final newline, for whole-body golden files. */
export function toPrettyJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
