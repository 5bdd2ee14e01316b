import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../../canonical/canonical-stream-part.js';
import { expectGolden, toJsonLines } from '../test-support/expect-golden.js';
import { createOpenaiResponsesStreamDecoder } from './decode-openai-responses-stream.js';
import { fixtureDirectory, listChunkFiles, readChunksAsSseBodies, recordedDirectory } from './test-support/read-fixture.js';
import { decodeBody, readSseEvents } from './test-support/run-stream.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

const streams = [
  ...listChunkFiles(recordedDirectory).map((name) => ({ name, path: join(recordedDirectory, `${name}.chunks.txt`) })),
  ...listChunkFiles(fixtureDirectory).map((name) => ({ name, path: join(fixtureDirectory, `${name}.chunks.txt`) })),
];

/** Every body of a chunks file, each through a fresh decoder (some recordings hold several responses). */
function decodeFile(path: string, chunkBytes?: number): { parts: CanonicalStreamPart[]; warnings: string[] } {
  const parts: CanonicalStreamPart[] = [];
  const warnings: string[] = [];
  for (const body of readChunksAsSseBodies(path)) {
    const decoder = createOpenaiResponsesStreamDecoder();
    parts.push(...decodeBody(decoder, body, chunkBytes));
    warnings.push(...decoder.warnings);
  }
  return { parts, warnings };
}

function sse(events: Record<string, unknown>[]): string {
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

describe('createOpenaiResponsesStreamDecoder', () => {
  it.each(streams)('matches the golden parts for $name', ({ name, path }) => {
    expectGolden(goldenFolder, `decode-${name}.parts.jsonl`, toJsonLines(decodeFile(path).parts));
  });

  it.each(streams)('gives the same parts for $name when the bytes arrive 7 at a time', ({ path }) => {
    expect(decodeFile(path, 7).parts).toEqual(decodeFile(path).parts);
  });

  it.each(streams)('starts once, finishes once and last, and closes every tool call it opened, for $name', ({ path }) => {
    for (const body of readChunksAsSseBodies(path)) {
      const parts = decodeBody(createOpenaiResponsesStreamDecoder(), body);
      expect(parts[0]?.type).toBe('start');
      expect(parts.filter((part) => part.type === 'start')).toHaveLength(1);
      expect(parts.filter((part) => part.type === 'finish')).toHaveLength(1);
      expect(parts[parts.length - 1]?.type).toBe('finish');
      const started = parts.flatMap((part) => (part.type === 'tool-call-start' ? [part.index] : []));
      const ended = parts.flatMap((part) => (part.type === 'tool-call-end' ? [part.index] : []));
      expect(ended).toEqual(started);
    }
  });

  it('emits tool-call arguments as each fragment arrives, before the stream ends', () => {
    const [body] = readChunksAsSseBodies(join(fixtureDirectory, 'openai-parallel-tool-calls.chunks.txt'));
    const decoder = createOpenaiResponsesStreamDecoder();
    const seen: CanonicalStreamPart[] = [];
    for (const event of readSseEvents(body ?? '')) {
      const parts = decoder.push(event);
      seen.push(...parts);
      if (JSON.parse(event.data).type === 'response.function_call_arguments.delta') {
        expect(parts).toEqual([{ type: 'tool-call-delta', index: 0, argumentsDelta: JSON.parse(event.data).delta }]);
        expect(seen.some((part) => part.type === 'finish')).toBe(false);
        return;
      }
    }
    throw new Error('no arguments delta in the fixture');
  });

  it('carries a custom tool call as a function call whose arguments are {"input": …}, with a warning', () => {
    const { parts, warnings } = decodeFile(join(recordedDirectory, 'openai-custom-tool.1.chunks.txt'));
    const argumentsText = parts.map((part) => (part.type === 'tool-call-delta' ? part.argumentsDelta : '')).join('');
    expect(JSON.parse(argumentsText)).toEqual({ input: 'SELECT * FROM users WHERE age > 25' });
    expect(warnings).toContain('custom tool call "write_sql" carried as a function call with arguments {"input": …}');
  });

  it('reports a failed response as an error part and an error finish', () => {
    const { parts } = decodeFile(join(fixtureDirectory, 'openai-failed.chunks.txt'));
    expect(parts.slice(-2)).toMatchObject([
      { type: 'error', code: 'server_error' },
      { type: 'finish', finishReason: { unified: 'error', raw: 'failed' }, usage: undefined },
    ]);
  });

  it('reads whole items when a compatible server sends no deltas, or only the finished item', () => {
    const body = sse([
      { type: 'response.created', response: { id: 'resp_x', model: 'm', created_at: 1, output: [] } },
      { type: 'response.output_item.added', output_index: 0, item: { type: 'message', role: 'assistant', content: [] } },
      { type: 'response.output_item.done', output_index: 0, item: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi' }] } },
      { type: 'response.output_item.added', output_index: 1, item: { type: 'function_call', call_id: 'c1', name: 'f', arguments: '' } },
      { type: 'response.output_item.done', output_index: 1, item: { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":1}' } },
      { type: 'response.output_item.done', output_index: 2, item: { type: 'function_call', call_id: 'c2', name: 'g', arguments: '{}' } },
      { type: 'response.completed', response: { status: 'completed', usage: { input_tokens: 3, output_tokens: 2 } } },
    ]);
    const parts = decodeBody(createOpenaiResponsesStreamDecoder(), body);
    expect(parts.map((part) => part.type)).toEqual([
      'start', 'text-delta', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'usage', 'finish',
    ]);
    expect(parts[3]).toEqual({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":1}' });
  });

  it('reads the answer from the final response when a compatible server streams only lifecycle events', () => {
    const body = sse([
      { type: 'response.created', response: { id: 'resp_x', model: 'm', created_at: 1, output: [] } },
      {
        type: 'response.completed',
        response: {
          status: 'completed',
          output: [
            { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Think.' }], encrypted_content: 'gAAAAAB1' },
            { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
          ],
          usage: { input_tokens: 3, output_tokens: 2 },
        },
      },
    ]);
    expect(decodeBody(createOpenaiResponsesStreamDecoder(), body).slice(1, -2)).toEqual([
      { type: 'reasoning-delta', text: 'Think.' },
      { type: 'reasoning-redacted', data: 'gAAAAAB1', issuer: 'openai' },
      { type: 'tool-call-start', index: 0, id: 'c1', name: 'f' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      { type: 'tool-call-end', index: 0 },
    ]);
  });

  it('skips an event it cannot read with a warning, and keeps going', () => {
    const decoder = createOpenaiResponsesStreamDecoder();
    const parts = decodeBody(decoder, `data: not json\n\n${sse([{ type: 'response.created', response: { id: 'r', model: 'm', created_at: 1 } }])}`);
    expect(parts.map((part) => part.type)).toEqual(['start', 'finish']);
    expect(decoder.warnings).toContain('an upstream event is not JSON; skipped');
  });

  it('finishes with "other" and closes open calls when the upstream breaks off', () => {
    const body = sse([
      { type: 'response.created', response: { id: 'resp_x', model: 'm', created_at: 1 } },
      { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call', call_id: 'c1', name: 'f', arguments: '' } },
      { type: 'response.function_call_arguments.delta', output_index: 0, delta: '{"a"' },
    ]);
    const decoder = createOpenaiResponsesStreamDecoder();
    const parts = decodeBody(decoder, body);
    expect(parts.slice(-2)).toEqual([
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: { unified: 'other', raw: undefined }, usage: undefined },
    ]);
    expect(decoder.warnings).toContain('the upstream stream ended without response.completed');
  });

  it('turns an error event into an error part and then an error finish', () => {
    const body = sse([
      { type: 'response.created', response: { id: 'resp_x', model: 'm', created_at: 1 } },
      { type: 'error', code: 'rate_limit_exceeded', message: 'Slow down', param: null },
    ]);
    expect(decodeBody(createOpenaiResponsesStreamDecoder(), body).slice(1)).toEqual([
      { type: 'error', message: 'Slow down', code: 'rate_limit_exceeded' },
      { type: 'finish', finishReason: { unified: 'error', raw: undefined }, usage: undefined },
    ]);
  });

  it('tells each finished web search at once (a cut stream bills them), and the final usage counts them once', () => {
    const search = (id: string) => ({ id, type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'q' } });
    const decoder = createOpenaiResponsesStreamDecoder();
    const pushed = (event: Record<string, unknown>) => decoder.push({ event: String(event.type), data: JSON.stringify(event), id: undefined });
    pushed({ type: 'response.created', response: { id: 'resp_ws', model: 'm', created_at: 1 } });
    expect(pushed({ type: 'response.output_item.done', output_index: 0, item: search('ws_1') })).toEqual([{ type: 'web-searches', count: 1 }, { type: 'output-item', id: 'ws_1' }]);
    expect(pushed({ type: 'response.output_item.done', output_index: 1, item: search('ws_2') })).toEqual([{ type: 'web-searches', count: 2 }, { type: 'output-item', id: 'ws_2' }]);
    const usage = { input_tokens: 10, output_tokens: 2, total_tokens: 12 };
    const closing = pushed({ type: 'response.completed', response: { id: 'resp_ws', model: 'm', created_at: 1, status: 'completed', output: [search('ws_1'), search('ws_2')], usage } });
    expect(closing.filter((part) => part.type === 'usage').map((part) => (part.type === 'usage' ? part.usage.webSearches : undefined))).toEqual([2]);
    expect(closing.some((part) => part.type === 'web-searches')).toBe(false);
  });

  it('tells the final object\'s searches the items did not show when it reports no usage', () => {
    const search = { id: 'ws_1', type: 'web_search_call', status: 'completed' };
    const body = sse([
      { type: 'response.created', response: { id: 'resp_ws', model: 'm', created_at: 1 } },
      { type: 'response.completed', response: { id: 'resp_ws', model: 'm', created_at: 1, status: 'completed', output: [search, search, search] } },
    ]);
    expect(decodeBody(createOpenaiResponsesStreamDecoder(), body).filter((part) => part.type === 'web-searches')).toEqual([{ type: 'web-searches', count: 3 }]);
  });
});
