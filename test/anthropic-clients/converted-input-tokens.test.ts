/**
 * The input of a converted answer reaches an @anthropic-ai/sdk client. A Chat, Responses or Gemini upstream
 * reports its usage only at the end, so the converted `message_start` says `input_tokens: 0` (it is not held
 * back for it); the `message_delta` carries the input and cache counts, which Anthropic's current API also
 * writes there and which the SDK's MessageStream copies into its snapshot (`input_tokens`,
 * `cache_read_input_tokens`, `cache_creation_input_tokens` when present). `finalMessage().usage` therefore
 * ends with the upstream's prompt tokens, as a whole answer's `usage` does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from '../cross-style/harness.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

const upstreams: { style: WireStyle; model: string }[] = [
  { style: 'openai-chat', model: M.chat },
  { style: 'openai-responses', model: M.responses },
  { style: 'gemini', model: M.gemini },
];
// 1,234 prompt tokens of which 1,000 read from the cache: Anthropic's input_tokens is the uncached rest.
const usage = { input: 1234, cacheRead: 1000, output: 7 };
const expectedUsage = { input_tokens: 234, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0, output_tokens: 7 };
const body = (model: string) => ({ model, max_tokens: 100, messages: [{ role: 'user' as const, content: 'Hi' }] });

describe('an Anthropic client of an upstream that reports usage at the end', () => {
  it.each(upstreams)('stream from $style: finalMessage().usage carries the upstream prompt tokens', async ({ style, model }) => {
    fixture.upstream.enqueue(replyFor(style, { text: 'Hello there.', stop: 'stop', usage }, true));
    const message = await fixture.anthropic.messages.stream(body(model)).finalMessage();
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello there.' })]);
    expect(message.usage).toMatchObject(expectedUsage);
  });

  it.each(upstreams)('stream from $style: message_delta, not message_start, carries the input', async ({ style, model }) => {
    fixture.upstream.enqueue(replyFor(style, { text: 'Hello there.', stop: 'stop', usage }, true));
    const events: any[] = [];
    for await (const event of await fixture.anthropic.messages.create({ ...body(model), stream: true })) events.push(event);
    const start = events.find((event) => event.type === 'message_start');
    const delta = events.find((event) => event.type === 'message_delta');
    // Not waited for: message_start goes before the answer, whose usage is not yet known.
    expect(start.message.usage).toMatchObject({ input_tokens: 0, output_tokens: 0 });
    expect(delta.usage).toMatchObject(expectedUsage);
  });

  it.each(upstreams.filter(({ style }) => style !== 'gemini'))('whole answer from $style: usage carries the upstream prompt tokens', async ({ style, model }) => {
    fixture.upstream.enqueue(replyFor(style, { text: 'Hello there.', stop: 'stop', usage }, false));
    const message = await fixture.anthropic.messages.create(body(model));
    expect(message.usage).toMatchObject(expectedUsage);
  });

  it('whole answer from gemini (collected from its stream): usage carries the upstream prompt tokens', async () => {
    fixture.upstream.enqueue(replyFor('gemini', { text: 'Hello there.', stop: 'stop', usage }, false));
    const message = await fixture.anthropic.messages.create(body(M.gemini));
    expect(message.usage).toMatchObject(expectedUsage);
  });
});
