import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The live recordings shared by every style, beside this repository (`../shared/reference/recorded/`). */
const recordedFolder = fileURLToPath(new URL('../../../../../shared/reference/recorded/gemini', import.meta.url));
const fixturesFolder = fileURLToPath(new URL('../__fixtures__/', import.meta.url));

/** Recorded streams (shared live recordings first, then this folder's own), by name without extension. */
export const recordedStreamNames = [
  'google-text',
  'google-reasoning',
  'google-tool-call',
  'google-stream-tool-call-arguments',
  'google-parallel-tool-calls',
  'google-thinking-signature',
  'google-max-tokens',
  'google-cache-usage',
];
const ownStreams = new Set(['google-parallel-tool-calls', 'google-thinking-signature', 'google-max-tokens', 'google-cache-usage']);

export function fixturePath(file: string): string {
  return `${fixturesFolder}${file}`;
}

/** The `data:` payloads of a `*.chunks.txt` file, one per line. */
export function readRecordedChunks(name: string): string[] {
  const folder = ownStreams.has(name) ? fixturesFolder : `${recordedFolder}/`;
  return readFileSync(`${folder}${name}.chunks.txt`, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** The chunks as the SSE body Google sends with `alt=sse` (CRLF line ends). */
export function toSseBody(chunks: string[]): string {
  return chunks.map((chunk) => `data: ${chunk}\r\n\r\n`).join('');
}

/** A recorded non-streamed body from the shared recordings. */
export function readRecordedJson(name: string): unknown {
  return JSON.parse(readFileSync(`${recordedFolder}/${name}.json`, 'utf8'));
}

export function readFixtureJson(file: string): unknown {
  return JSON.parse(readFileSync(fixturePath(file), 'utf8'));
}
