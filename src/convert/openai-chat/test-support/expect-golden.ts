import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const goldenDirectory = join(dirname(fileURLToPath(import.meta.url)), '..', '__golden__');

/** Compares `actual` with `__golden__/<name>` exactly; `UPDATE_GOLDEN=1` rewrites the file instead. */
export function expectGolden(name: string, actual: string): void {
  const path = join(goldenDirectory, name);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path)) throw new Error(`golden file ${name} is missing: run with UPDATE_GOLDEN=1, then read it`);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}

/** One JSON value per line, newline-terminated. */
export function toJsonLines(values: readonly unknown[]): string {
  return values.map((value) => `${JSON.stringify(value)}\n`).join('');
}

/** Pretty JSON with a final newline, for whole-body golden files. */
export function toPrettyJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
