import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../fakes/scripted-upstream.js';
import { errorReply, replyFor, streamErrorEvent, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { send } from './clients.js';
import { M, crossPairs, modelOf, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

const pairs = crossPairs();

async function caught(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return undefined;
}

/**
 * Events 20 ms apart, so the gateway writes the error it forwards (or makes of a cut) apart from the
 * text before it: @google/genai raises its `ApiError` only for an error object that arrives alone in a
 * network chunk.
 */
const paced = (reply: ScriptedReply): ScriptedReply => ({ ...reply, delayMs: 20 });

/** A stream that stops in the middle of its text: the upstream then closes the connection cleanly, without its final events. */
function truncated(up: WireStyle): ScriptedReply {
  const cut = replyFor(up, { text: 'The answer is forty', usage: { input: 5, output: 5 } }, true, { terminal: false });
  return { ...paced({ ...cut, sse: cut.sse!.slice(0, -1) }), endDelayMs: 20 };
}

/** A stream that reports an error after some text, in the vendor's own way, and closes. */
function midStreamError(up: WireStyle): ScriptedReply {
  const kept: Record<WireStyle, number> = { 'openai-chat': 3, anthropic: 3, gemini: 1, 'openai-responses': 5 };
  const whole = replyFor(up, { text: 'Partial answer', usage: { input: 5, output: 5 } }, true);
  return paced({ ...whole, sse: [...whole.sse!.slice(0, kept[up]), streamErrorEvent(up, 'Upstream overloaded')] });
}

describe('upstream errors reach each client style as errors its SDK raises', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it.each(pairs.flatMap((p) => [false, true].map((stream) => ({ ...p, stream }))))('HTTP 429: $client client ← $up upstream (stream=$stream)', async ({ up, client, stream }) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(errorReply(up, 429, `Rate limit reached for ${modelOf[up]}`));
    const error = await caught(send(fixture, client, { model: modelOf[up], messages: [{ role: 'user', text: 'hi' }] }, stream));
    expect(error).toBeDefined();
    expect(error.status).toBe(429);
    expect(String(error.message)).toContain('Rate limit reached');
    if (client === 'anthropic') expect(error.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    if (client === 'openai-chat' || client === 'openai-responses') expect(error.error).toMatchObject({ message: expect.stringContaining('Rate limit reached') });
    if (client === 'gemini') expect(String(error.message)).toContain('RESOURCE_EXHAUSTED');
  });

  it.each(pairs)('a mid-stream upstream error reaches the $client client from $up as an error, not a normal end, and is logged', async ({ up, client }) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(midStreamError(up));
    const error = await caught(send(fixture, client, { model: modelOf[up], messages: [{ role: 'user', text: 'hi' }] }, true));
    expect(error).toBeDefined();
    expect(String(error.message)).toContain('Upstream overloaded');
    expect((await fixture.lastLog()).error).toContain('Upstream overloaded');
  });

  it.each(pairs)('a stream cut without its final events: the $client SDK raises for the $up upstream\'s answer, and the log records the interruption', async ({ up, client }) => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(truncated(up));
    const error = await caught(send(fixture, client, { model: modelOf[up], messages: [{ role: 'user', text: 'hi' }] }, true));
    expect(error).toBeDefined();
    expect(String(error.message)).toContain('The upstream stream was interrupted.');
    expect((await fixture.lastLog()).error).toMatch(/interrupted/);
  });
});

describe('a cut upstream stream is told to the client and recorded as interrupted in the log', () => {
  it('openai-chat client (raw chunks) ← anthropic stream that closes without message_delta/message_stop', async () => {
    const fixture = await startCrossStyleFixture();
    try {
      fixture.upstream.enqueue(truncated('anthropic'));
      let content = '';
      let finish: string | null | undefined;
      const error = await caught((async () => {
        for await (const chunk of await fixture.openai.chat.completions.create({ model: M.anthropic, messages: [{ role: 'user', content: 'hi' }], stream: true })) {
          content += chunk.choices[0]?.delta.content ?? '';
          finish = chunk.choices[0]?.finish_reason ?? finish;
        }
      })());
      // The client can tell the answer was cut: the SDK raises, after the text that did arrive, with no finish reason.
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toContain('The upstream stream was interrupted.');
      expect(content).toBe('The answer is fo');
      expect(finish).toBeUndefined();
      const log = await fixture.lastLog();
      expect(log.error).toMatch(/interrupted/);
    } finally {
      await fixture.close();
    }
  });
});
