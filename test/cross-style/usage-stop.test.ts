import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type Answer, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { send, type ClientStyle, type Conv, type Observed } from './clients.js';
import { M, convertedCases, modelOf, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

const cases = convertedCases();

/** What a client's usage object says, normalized (input includes cache, output includes reasoning). */
function readUsage(client: ClientStyle, u: any): { input: number; cacheRead: number; cacheWrite?: number; output: number; reasoning?: number } {
  switch (client) {
    case 'openai-chat':
      return { input: u.prompt_tokens, cacheRead: u.prompt_tokens_details?.cached_tokens ?? 0, output: u.completion_tokens, reasoning: u.completion_tokens_details?.reasoning_tokens ?? 0 };
    case 'openai-responses':
      return { input: u.input_tokens, cacheRead: u.input_tokens_details?.cached_tokens ?? 0, output: u.output_tokens, reasoning: u.output_tokens_details?.reasoning_tokens ?? 0 };
    case 'anthropic':
      return { input: u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0), cacheRead: u.cache_read_input_tokens ?? 0, cacheWrite: u.cache_creation_input_tokens ?? 0, output: u.output_tokens };
    case 'gemini':
      return { input: u.promptTokenCount, cacheRead: u.cachedContentTokenCount ?? 0, output: (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0), reasoning: u.thoughtsTokenCount ?? 0 };
  }
}

describe('usage (cache read/write, reasoning) mapped into the client style', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it.each(cases)('$client client ← $up upstream (stream=$stream)', async ({ up, client, stream }) => {
    // Anthropic has cache writes but no reasoning split; the others have reasoning but no cache writes.
    const usage: WireUsage = up === 'anthropic' ? { input: 100, cacheRead: 60, cacheWrite: 20, output: 30 } : { input: 100, cacheRead: 60, output: 30, reasoning: 10 };
    const answer: Answer = { text: 'Hello there.', stop: 'stop', usage };
    fixture.upstream.enqueue(replyFor(up, answer, stream));
    const observed = await send(fixture, client, { model: modelOf[up], messages: [{ role: 'user', text: 'hi' }] }, stream);
    expect(observed.text).toBe('Hello there.');
    const read = readUsage(client, observed.usage);
    expect({ input: read.input, cacheRead: read.cacheRead, output: read.output }).toEqual({ input: 100, cacheRead: 60, output: 30 });
    if (client === 'anthropic' && up === 'anthropic') expect(read.cacheWrite).toBe(20);
    if (read.reasoning !== undefined && up !== 'anthropic') expect(read.reasoning).toBe(10);
    const log = await fixture.lastLog();
    expect(log).toMatchObject({ usage_source: 'upstream', input_tokens: 100, output_tokens: 30 });
  });
});

const lengthStop: Record<ClientStyle, string> = { 'openai-chat': 'length', anthropic: 'max_tokens', 'openai-responses': 'incomplete:max_output_tokens', gemini: 'MAX_TOKENS' };
const plainStop: Record<ClientStyle, string> = { 'openai-chat': 'stop', anthropic: 'end_turn', 'openai-responses': 'completed', gemini: 'STOP' };

describe('stop reasons mapped into the client style', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it.each(cases)('max tokens: $client client ← $up upstream (stream=$stream)', async ({ up, client, stream }) => {
    fixture.upstream.enqueue(replyFor(up, { text: 'Once upon a', stop: 'length', usage: { input: 5, output: 3 } }, stream));
    const conv: Conv = { model: modelOf[up], maxTokens: 3, messages: [{ role: 'user', text: 'Tell a story' }] };
    const observed: Observed = await send(fixture, client, conv, stream);
    expect(observed.text).toBe('Once upon a');
    expect(observed.stop).toBe(lengthStop[client]);
  });

  it.each(cases.filter(({ up }) => up === 'anthropic'))('stop sequence: $client client ← anthropic upstream (stream=$stream)', async ({ up, client, stream }) => {
    fixture.upstream.enqueue(replyFor(up, { text: 'one two', stop: 'stop_sequence', stopSequence: 'three', usage: { input: 5, output: 3 } }, stream));
    const observed = await send(fixture, client, { model: modelOf[up], stop: ['three'], messages: [{ role: 'user', text: 'count' }] }, stream);
    expect(observed.stop).toBe(plainStop[client]);
    // The Responses API has no stop parameter: only the other clients send one.
    if (client !== 'openai-responses') expect(fixture.upstream.requests.at(-1)!.body.stop_sequences).toEqual(['three']);
  });

  it.each([false, true])('stop sequences reach a gemini and an openai-chat upstream from an anthropic client (stream=%s)', async (stream) => {
    fixture.upstream.enqueue(replyFor('gemini', { text: 'one two', stop: 'stop', usage: { input: 5, output: 3 } }, stream));
    await send(fixture, 'anthropic', { model: M.gemini, stop: ['three'], messages: [{ role: 'user', text: 'count' }] }, stream);
    expect(fixture.upstream.requests.at(-1)!.body.generationConfig.stopSequences).toEqual(['three']);
    fixture.upstream.enqueue(replyFor('openai-chat', { text: 'one two', stop: 'stop', usage: { input: 5, output: 3 } }, stream));
    await send(fixture, 'anthropic', { model: M.chat, stop: ['three'], messages: [{ role: 'user', text: 'count' }] }, stream);
    expect(fixture.upstream.requests.at(-1)!.body.stop).toEqual(['three']);
  });
});
