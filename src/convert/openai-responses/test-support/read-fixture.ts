import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CanonicalStreamPart } from '../../../canonical/canonical-stream-part.js';

const here = dirname(fileURLToPath(import.meta.url));
export const fixtureDirectory = join(here, '..', '__fixtures__');
/** Traffic recorded from the live APIs (shared by every style; see its README). */
export const recordedDirectory = join(here, '..', '..', '..', '..', '..', 'shared', 'reference', 'recorded', 'openai-responses');
export const scenarioDirectory = join(here, '..', '..', 'scenarios');

/** A JSON file from `__fixtures__/` or the recordings. */
export function readJson(directory: string, name: string): unknown {
  return JSON.parse(readFileSync(join(directory, name), 'utf8'));
}

/** The `*.chunks.txt` files of a directory, by name without the suffix. */
export function listChunkFiles(directory: string): string[] {
  return readdirSync(directory)
    .filter((file) => file.endsWith('.chunks.txt'))
    .map((file) => file.slice(0, -'.chunks.txt'.length))
    .sort();
}

/**
 * A `*.chunks.txt` file (one `data:` payload per line) as the SSE bodies the upstream sent: each payload framed
 * with `event: <its type>` as OpenAI does, no `[DONE]`. Some recordings hold several responses one after the
 * other: a new body starts at each `response.created`.
 */
export function readChunksAsSseBodies(path: string): string[] {
  const bodies: string[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const type = (JSON.parse(line) as { type: string }).type;
    if (type === 'response.created' || bodies.length === 0) bodies.push('');
    bodies[bodies.length - 1] += `event: ${type}\ndata: ${line}\n\n`;
  }
  return bodies;
}

/** A scenario of `src/convert/scenarios/` as parts. */
export function readScenario(name: string): CanonicalStreamPart[] {
  return readFileSync(join(scenarioDirectory, `${name}.parts.jsonl`), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CanonicalStreamPart);
}

export function listScenarios(): string[] {
  return readdirSync(scenarioDirectory)
    .filter((file) => file.endsWith('.parts.jsonl'))
    .map((file) => file.slice(0, -'.parts.jsonl'.length))
    .sort();
}
