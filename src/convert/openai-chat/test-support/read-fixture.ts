import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const fixtureDirectory = join(here, '..', '__fixtures__');
/** Streams recorded from the live APIs (shared by every style; see its README). */
export const recordedDirectory = join(here, '..', '..', '..', '..', '..', 'shared', 'reference', 'recorded', 'openai-chat');

/** A JSON file from `__fixtures__/`. */
export function readFixture(name: string): unknown {
  return JSON.parse(readFileSync(join(fixtureDirectory, name), 'utf8'));
}

/**
 * A `*.chunks.txt` file (one `data:` payload per line) as the bytes the upstream sent: each line framed as an
 * SSE event, then `data: [DONE]`, which the recordings leave out.
 */
export function readChunksAsSse(path: string): string {
  const lines = readFileSync(path, 'utf8').split('\n').filter((line) => line.trim() !== '');
  return `${lines.map((line) => `data: ${line}\n\n`).join('')}data: [DONE]\n\n`;
}
