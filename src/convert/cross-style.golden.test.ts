import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../canonical/canonical-stream-part.js';
import { textStyles } from '../relay/text/text-styles.js';
import type { TextStyleName } from '../relay/text-style.js';
import { createSseDecoder, type SseEvent } from '../streaming/decode-sse.js';
import { createTestContext } from './test-support/create-test-context.js';
import { expectGolden, toJsonLines } from './test-support/expect-golden.js';

/**
 * The golden suite of issue #5: for every upstream style × client style pair — same style included —
 * recorded upstream traffic in (the shared recordings plus each style's __fixtures__), the exact client
 * output out. Streams go decode(upstream) → canonical parts → encode(client); whole responses parse →
 * format; client requests parse → format for the upstream. Goldens live in __golden__/<pair>/, one JSON
 * value per line. `UPDATE_GOLDEN=1` rewrites them; review the diff before committing.
 */
const styles: TextStyleName[] = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'];
const recordedFolder: Record<TextStyleName, string> = { 'openai-chat': 'openai-chat', 'openai-responses': 'openai-responses', 'anthropic-messages': 'anthropic-messages', gemini: 'gemini' };
const sharedRecorded = new URL('../../../shared/reference/recorded/', import.meta.url);

function files(style: TextStyleName, suffix: string, include: (name: string) => boolean): Map<string, string> {
  const found = new Map<string, string>();
  const folders = [new URL(`${recordedFolder[style]}/`, sharedRecorded), new URL(`./${style}/__fixtures__/`, import.meta.url)];
  for (const folder of folders) {
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder)) {
      if (name.endsWith(suffix) && include(name) && !found.has(name)) found.set(name, readFileSync(new URL(name, folder), 'utf8'));
    }
  }
  return found;
}

/** A recording's lines as SSE events; several back-to-back Responses streams are split into segments. */
function streamSegments(style: TextStyleName, text: string): SseEvent[][] {
  const payloads = text.trim().split('\n').filter((line) => line.trim() !== '');
  const segments: SseEvent[][] = [[]];
  for (const payload of payloads) {
    const type = (JSON.parse(payload) as { type?: string }).type;
    const named = style === 'anthropic-messages' || style === 'openai-responses';
    segments[segments.length - 1]!.push({ event: named ? type : undefined, data: payload, id: undefined });
    if (style === 'openai-responses' && (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed')) segments.push([]);
  }
  if (style === 'openai-chat') segments[0]!.push({ event: undefined, data: '[DONE]', id: undefined });
  return segments.filter((segment) => segment.length > 0);
}

function sseToLines(text: string): unknown[] {
  const lines: unknown[] = [];
  const decoder = createSseDecoder({ maxEventBytes: 1 << 24, onEvent: (event) => lines.push({ event: event.event ?? null, data: parseMaybe(event.data) }) });
  decoder.push(Buffer.from(text));
  decoder.end();
  // A bare JSON object outside any event (Gemini's mid-stream error) ends a stream: kept, last.
  for (const line of text.split('\n')) if (line.startsWith('{')) lines.push({ bare: parseMaybe(line) });
  return lines;
}

function parseMaybe(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The golden file `<name>.jsonl` of `__golden__/<pair>/`: one JSON value per line. */
function expectPairGolden(pair: string, name: string, lines: unknown[]): void {
  expectGolden(new URL(`./__golden__/${pair}/`, import.meta.url), `${name}.jsonl`, toJsonLines(lines));
}

describe('cross-style golden suite', () => {
  for (const upstream of styles) {
    const streams = files(upstream, '.chunks.txt', (name) => !name.startsWith('openai-completion'));
    const responses = files(upstream, '.json', (name) => !name.startsWith('canonical-') && !name.startsWith('request-'));
    for (const client of styles) {
      const pair = `${upstream}-to-${client}`;
      describe(pair, () => {
        for (const [name, text] of streams) {
          it(`stream ${name}`, () => {
            const lines: unknown[] = [];
            streamSegments(upstream, text).forEach((segment) => {
              const decoder = textStyles[upstream].createDecoder();
              const encoder = textStyles[client].createEncoder(createTestContext(), { includeUsage: true });
              let out = '';
              const parts: CanonicalStreamPart[] = [];
              for (const event of segment) parts.push(...decoder.push(event));
              parts.push(...decoder.end());
              for (const part of parts) out += encoder.encode(part);
              out += encoder.end();
              lines.push(...sseToLines(out));
            });
            expect(lines.length).toBeGreaterThan(0);
            expectPairGolden(pair, `stream-${name.replace('.chunks.txt', '')}`, lines);
          });
        }
        for (const [name, text] of responses) {
          it(`response ${name}`, () => {
            const parsed = textStyles[upstream].parseResponse(JSON.parse(text));
            const formatted = textStyles[client].formatResponse(parsed.value, createTestContext());
            expectPairGolden(pair, `response-${name.replace('.json', '')}`, [formatted.value, { warnings: [...parsed.warnings, ...formatted.warnings] }]);
          });
        }
      });
      describe(`${client} request to ${upstream}`, () => {
        for (const [name, text] of files(client, '.json', (file) => file.startsWith('request-'))) {
          it(`request ${name}`, () => {
            const parsed = textStyles[client].parseRequest(JSON.parse(text));
            if ('invalid' in parsed) throw new Error(`fixture ${name} is invalid: ${parsed.message}`);
            // 'upstream-model' names no reasoning model: the channel setting says it takes reasoning, so the goldens show its mapping.
            const formatted = textStyles[upstream].formatRequest(parsed.value, 'upstream-model', { reasoningEffortSetting: true });
            expectPairGolden(`${client}-request-to-${upstream}`, name.replace('.json', ''), [formatted.value, { warnings: [...parsed.warnings, ...formatted.warnings] }]);
          });
        }
      });
    }
  }
});
