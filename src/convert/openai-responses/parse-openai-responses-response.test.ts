import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectGolden, toPrettyJson } from '../test-support/expect-golden.js';
import { parseOpenaiResponsesResponse } from './parse-openai-responses-response.js';
import { fixtureDirectory, readJson, recordedDirectory } from './test-support/read-fixture.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

const recorded = readdirSync(recordedDirectory).filter((file) => file.endsWith('.json'));
const ownFixtures = readdirSync(fixtureDirectory).filter((file) => file.startsWith('response-') && file.endsWith('.json'));

describe('parseOpenaiResponsesResponse', () => {
  it.each(recorded)('matches the golden canonical response for the recorded %s', (file) => {
    expectGolden(goldenFolder, `parse-response-${file.slice(0, -'.json'.length)}.json`, toPrettyJson(parseOpenaiResponsesResponse(readJson(recordedDirectory, file))));
  });

  it.each(ownFixtures)('matches the golden canonical response for %s', (file) => {
    expectGolden(goldenFolder, `parse-${file}`, toPrettyJson(parseOpenaiResponsesResponse(readJson(fixtureDirectory, file))));
  });

  it('reports a turn ending in function calls as tool_calls, keeping the raw status', () => {
    const { value } = parseOpenaiResponsesResponse(readJson(fixtureDirectory, 'response-parallel-tool-calls.json'));
    expect(value.finishReason).toEqual({ unified: 'tool_calls', raw: 'completed' });
    expect(value.content.map((part) => (part.type === 'tool-call' ? part.id : part.type))).toEqual(['call_Kx7mQ2rT9vB4nL6pW1sY3zA5', 'call_Zp4wN8cV2hJ5kR7tX9mB1qD3']);
  });

  it('reads a max_output_tokens stop as length and cached tokens as cache reads', () => {
    expect(parseOpenaiResponsesResponse(readJson(fixtureDirectory, 'response-max-output-tokens.json')).value.finishReason).toEqual({ unified: 'length', raw: 'max_output_tokens' });
    const usage = parseOpenaiResponsesResponse(readJson(fixtureDirectory, 'response-cached-usage.json')).value.usage;
    expect({ input: usage?.input, output: usage?.output }).toEqual({ input: { total: 2006, cacheRead: 1792, cacheWrite: 0 }, output: { total: 6, reasoning: 0 } });
  });

  it('drops what it cannot carry with a warning, and a malformed item too', () => {
    const { value, warnings } = parseOpenaiResponsesResponse({
      id: 'resp_1',
      status: 'completed',
      output: [
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
        { type: 'function_call', id: 'fc_1', name: 'f' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok', annotations: [{ type: 'url_citation', url: 'https://a' }] }] },
      ],
    });
    expect(value.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(warnings).toEqual([
      'output[0]: a "web_search_call" item cannot be carried to other API styles; dropped',
      `output[1]: a malformed "function_call" item is dropped (Invalid value for 'output[1].call_id': Required)`,
      'output[2].content[0]: annotations are not carried',
      'the upstream reported no usage',
    ]);
  });

  it('throws on a body that is no Response at all', () => {
    expect(() => parseOpenaiResponsesResponse('<html>')).toThrow(/not a Response/);
  });
});
