import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest, CanonicalResponse, CanonicalStreamPart } from '../../canonical/conversion.js';
import { expectGolden, toJsonLines, toPrettyJson } from '../test-support/expect-golden.js';
import { createAnthropicMessagesStreamDecoder } from './decode-anthropic-messages-stream.js';
import { createAnthropicMessagesStreamEncoder } from './encode-anthropic-messages-stream.js';
import { formatAnthropicMessagesRequest } from './format-anthropic-messages-request.js';
import { formatAnthropicMessagesResponse } from './format-anthropic-messages-response.js';
import { parseAnthropicMessagesRequest } from './parse-anthropic-messages-request.js';
import { parseAnthropicMessagesResponse } from './parse-anthropic-messages-response.js';
import { createTestConversionContext } from './test-support/create-test-conversion-context.js';
import { readSseEvents } from './test-support/read-sse-events.js';
import { replaySseThroughDecoder, toAnthropicSseText } from './test-support/replay-anthropic-chunks.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '__fixtures__');
const goldenFolder = new URL('./__golden__/', import.meta.url);
const scenarios = join(here, '..', 'scenarios');
const sharedRecordings = join(here, '..', '..', '..', '..', 'shared', 'reference', 'recorded', 'anthropic-messages');

const fixture = (name: string): string => readFileSync(join(fixtures, name), 'utf8');
const fixtureJson = <T>(name: string): T => JSON.parse(fixture(name)) as T;
const fixturesMatching = (pattern: RegExp): string[] => readdirSync(fixtures).filter((name) => pattern.test(name)).sort();
const caseName = (name: string, pattern: RegExp): string => name.replace(pattern, '');

describe('Anthropic Messages goldens', () => {
  describe('stream decoding of recorded traffic', () => {
    const recordings = fixturesMatching(/\.chunks\.txt$/);
    const warningsByRecording: Record<string, string[]> = {};

    it.each(recordings)('decodes %s into the golden parts', (name) => {
      const decoder = createAnthropicMessagesStreamDecoder();
      const { parts } = replaySseThroughDecoder(toAnthropicSseText(fixture(name)), decoder);
      const golden = `decode-${caseName(name, /\.chunks\.txt$/)}.parts.jsonl`;
      expectGolden(goldenFolder, golden, toJsonLines(parts));
      warningsByRecording[name] = decoder.warnings;
    });

    it('reports the golden warnings for each recording', () => {
      const warnings = Object.fromEntries(recordings.map((name) => [name, warningsByRecording[name]]));
      expectGolden(goldenFolder, 'decode-warnings.json', toPrettyJson(warnings));
    });

    it.skipIf(!existsSync(sharedRecordings))('keeps its copies of the shared recordings identical to them', () => {
      for (const name of readdirSync(sharedRecordings)) expect(fixture(name), name).toBe(readFileSync(join(sharedRecordings, name), 'utf8'));
    });
  });

  describe('stream encoding of the shared scenarios', () => {
    const scenarioFiles = readdirSync(scenarios).filter((name) => name.endsWith('.parts.jsonl')).sort();
    const warningsByScenario: Record<string, string[]> = {};

    it.each(scenarioFiles)('encodes %s into the golden wire events', (name) => {
      const parts = readFileSync(join(scenarios, name), 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as CanonicalStreamPart);
      const encoder = createAnthropicMessagesStreamEncoder(createTestConversionContext());
      const text = parts.map((part) => encoder.encode(part)).join('') + encoder.end();
      const events = readSseEvents(text);
      expectGolden(goldenFolder, `encode-${caseName(name, /\.parts\.jsonl$/)}.jsonl`, toJsonLines(events));
      warningsByScenario[name] = encoder.warnings;
    });

    it('reports the golden warnings for each scenario', () => {
      const warnings = Object.fromEntries(scenarioFiles.map((name) => [name, warningsByScenario[name]]));
      expectGolden(goldenFolder, 'encode-warnings.json', toPrettyJson(warnings));
    });
  });

  describe('requests', () => {
    it.each(fixturesMatching(/^request-.*\.json$/))('parses the client request %s into the golden canonical request', (name) => {
      const result = parseAnthropicMessagesRequest(fixtureJson(name));
      const golden = `parse-request-${caseName(name, /^request-|\.json$/g)}.json`;
      expectGolden(goldenFolder, golden, toPrettyJson(result));
    });

    it.each(fixturesMatching(/^canonical-request-.*\.json$/))('formats the canonical request %s into the golden upstream body', (name) => {
      const result = formatAnthropicMessagesRequest(fixtureJson<CanonicalRequest>(name), 'claude-sonnet-4-5-20250929');
      const golden = `format-request-${caseName(name, /^canonical-request-|\.json$/g)}.json`;
      expectGolden(goldenFolder, golden, toPrettyJson(result));
    });
  });

  describe('responses', () => {
    it.each(fixturesMatching(/^anthropic-.*\.json$/))('parses the upstream response %s into the golden canonical response', (name) => {
      const result = parseAnthropicMessagesResponse(fixtureJson(name));
      const golden = `parse-response-${caseName(name, /^anthropic-|\.json$/g)}.json`;
      expectGolden(goldenFolder, golden, toPrettyJson(result));
    });

    it.each(fixturesMatching(/^canonical-response-.*\.json$/))('formats the canonical response %s into the golden client body', (name) => {
      const result = formatAnthropicMessagesResponse(fixtureJson<CanonicalResponse>(name), createTestConversionContext());
      const golden = `format-response-${caseName(name, /^canonical-response-|\.json$/g)}.json`;
      expectGolden(goldenFolder, golden, toPrettyJson(result));
    });
  });
});
