import { describe, expect, it } from 'vitest';
import { collectStreamParts } from '../../canonical/collect-stream-parts.js';
import { createTestContext } from '../test-support/create-test-context.js';
import { expectGolden, toJsonLines } from '../test-support/expect-golden.js';
import { createOpenaiResponsesStreamDecoder } from './decode-openai-responses-stream.js';
import { createOpenaiResponsesStreamEncoder } from './encode-openai-responses-stream.js';
import { listScenarios, readScenario } from './test-support/read-fixture.js';
import { decodeBody, encodeParts, toWireEvents } from './test-support/run-stream.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

const scenarios = listScenarios();

function encodeScenario(name: string): string {
  return encodeParts(createOpenaiResponsesStreamEncoder(createTestContext()), readScenario(name));
}

function withoutRaw<T extends { usage: { raw?: unknown } | undefined }>(response: T): T {
  if (response.usage === undefined) return response;
  const { raw: _raw, ...usage } = response.usage;
  return { ...response, usage };
}

describe('createOpenaiResponsesStreamEncoder', () => {
  it.each(scenarios)('matches the golden client events for the %s scenario', (name) => {
    expectGolden(goldenFolder, `encode-${name}.jsonl`, toJsonLines(toWireEvents(encodeScenario(name))));
  });

  it.each(scenarios)('names every event by its type and numbers them from 0 in the %s scenario', (name) => {
    const events = toWireEvents(encodeScenario(name));
    events.forEach((event, index) => {
      expect(event.data).toMatchObject({ type: event.event, sequence_number: index });
    });
    expect(events.slice(0, 2).map((event) => event.event)).toEqual(['response.created', 'response.in_progress']);
    expect(events[events.length - 1]?.event).toMatch(/^response\.(completed|incomplete)$/);
  });

  it.each(scenarios)('is read back by the decoder into the same answer for the %s scenario', (name) => {
    const decoded = decodeBody(createOpenaiResponsesStreamDecoder(), encodeScenario(name));
    const expected = collectStreamParts(readScenario(name));
    const actual = collectStreamParts(decoded);
    expect(withoutRaw(actual)).toMatchObject({ content: expected.content, finishReason: { unified: expected.finishReason.unified }, usage: expected.usage });
  });

  it('ends a length stop with response.incomplete and reason max_output_tokens', () => {
    const last = toWireEvents(encodeScenario('max-tokens')).at(-1);
    expect(last?.data).toMatchObject({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } });
  });

  it('reports a stream that ends without its finish as a failed response, with a warning', () => {
    const encoder = createOpenaiResponsesStreamEncoder(createTestContext());
    const text = encoder.encode({ type: 'start', id: 'x', model: 'm', created: 5 }) + encoder.encode({ type: 'text-delta', text: 'Hel' }) + encoder.end();
    const events = toWireEvents(text);
    expect(events.map((event) => event.event)).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta',
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.failed',
    ]);
    expect(events.at(-1)?.data).toMatchObject({ response: { status: 'failed', error: { code: 'server_error' }, output: [{ type: 'message', status: 'incomplete' }] } });
    expect(encoder.warnings).toEqual(['the stream ended before its finish part: the response is reported as failed']);
  });

  it('sends an error part as an error event, then the failed response with that error', () => {
    const encoder = createOpenaiResponsesStreamEncoder(createTestContext());
    const text = encodeParts(encoder, [
      { type: 'start', id: 'x', model: 'm', created: 5 },
      { type: 'error', message: 'Overloaded', code: 'overloaded_error' },
      { type: 'finish', finishReason: { unified: 'error', raw: 'error' }, usage: undefined },
    ]);
    expect(toWireEvents(text).slice(2)).toMatchObject([
      { event: 'error', data: { code: 'server_is_overloaded', message: 'Overloaded', param: null } },
      { event: 'response.failed', data: { response: { status: 'failed', error: { code: 'server_error', message: 'Overloaded' }, usage: null } } },
    ]);
  });

  it.each([
    ['RESOURCE_EXHAUSTED', 'rate_limit_exceeded', 'rate_limit_exceeded'],
    ['UNAVAILABLE', 'server_is_overloaded', 'server_error'],
    ['invalid_request_error', 'invalid_prompt', 'invalid_prompt'],
    ['vector_store_timeout', 'vector_store_timeout', 'vector_store_timeout'],
    [undefined, 'server_error', 'server_error'],
  ])('writes the %s error in OpenAI\'s words: error event code %s, failed response code %s', (code, eventCode, failedCode) => {
    const text = encodeParts(createOpenaiResponsesStreamEncoder(createTestContext()), [
      { type: 'start', id: 'x', model: 'm', created: 5 },
      code === undefined ? { type: 'error', message: 'm' } : { type: 'error', message: 'm', code },
      { type: 'finish', finishReason: { unified: 'error', raw: 'error' }, usage: undefined },
    ]);
    expect(toWireEvents(text).slice(2)).toMatchObject([
      { event: 'error', data: { code: eventCode } },
      { event: 'response.failed', data: { response: { error: { code: failedCode } } } },
    ]);
  });

  it('keeps interleaved parallel calls apart by output index', () => {
    const text = encodeParts(createOpenaiResponsesStreamEncoder(createTestContext()), [
      { type: 'start', id: 'x', model: 'm', created: 5 },
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'a' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'b' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"b":2}' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":1}' },
      { type: 'tool-call-end', index: 1 },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: { unified: 'tool_calls', raw: 'tool_use' }, usage: undefined },
    ]);
    const final = toWireEvents(text).at(-1)?.data as { response: { output: unknown[] } };
    expect(final.response.output).toMatchObject([
      { type: 'function_call', call_id: 'call_a', arguments: '{"a":1}' },
      { type: 'function_call', call_id: 'call_b', arguments: '{"b":2}' },
    ]);
  });
});

describe('createOpenaiResponsesStreamEncoder refusals', () => {
  it('streams refusal text as a refusal part (response.refusal.delta / .done), in a message of its own', () => {
    const text = encodeParts(createOpenaiResponsesStreamEncoder(createTestContext()), [
      { type: 'start', id: 'resp_1', model: 'm', created: 1 },
      { type: 'text-delta', text: "I'm sorry, ", refusal: true },
      { type: 'text-delta', text: "I can't.", refusal: true },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: undefined },
    ]);
    const events = toWireEvents(text);
    const types = events.map((event) => (event.data as { type: string }).type);
    expect(types).toContain('response.refusal.delta');
    expect(types).not.toContain('response.output_text.delta');
    expect(events.find((event) => (event.data as { type: string }).type === 'response.refusal.done')?.data).toMatchObject({ refusal: "I'm sorry, I can't." });
    const completed = events.at(-1)?.data as { type: string; response: { output: unknown[] } };
    expect(completed.type).toBe('response.completed');
    expect(completed.response.output).toMatchObject([{ type: 'message', content: [{ type: 'refusal', refusal: "I'm sorry, I can't." }] }]);
  });
});
