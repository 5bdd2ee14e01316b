/**
 * An upstream's error reaches a client of another style in that style's own words (read-error-kind.ts,
 * map-error-kind.ts): an OpenAI SDK user branches on `rate_limit_exceeded` / `server_error`, never on
 * Anthropic's `overloaded_error` or Google's `UNAVAILABLE`; an Anthropic client reads Anthropic types, a
 * Gemini client Google statuses. The message stays the upstream's own. Whole answers and mid-stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply, SseEvent } from '../fakes/scripted-upstream.js';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { caught, M, modelOf, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

/** Each vendor's error answers, as their APIs send them (protocols.md §6.3, §7, §11). */
const anthropicOverloaded = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' }, request_id: 'req_up1' };
const geminiUnavailable = { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } };
const geminiExhausted = { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } };
const openaiQuota = { error: { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } };

interface VendorError {
  name: string;
  up: WireStyle;
  status: number;
  body: { error: { message: string } };
  /** The same error as the vendor sends it after a 200, mid-stream. */
  event: SseEvent;
  openai: { type: string; code: string };
  responsesFailedCode: string;
}

const vendorErrors: VendorError[] = [
  {
    name: 'Anthropic 529 overloaded_error', up: 'anthropic', status: 529, body: anthropicOverloaded,
    event: { event: 'error', data: { type: 'error', error: anthropicOverloaded.error } },
    openai: { type: 'server_error', code: 'server_is_overloaded' }, responsesFailedCode: 'server_error',
  },
  {
    name: 'Gemini 503 UNAVAILABLE', up: 'gemini', status: 503, body: geminiUnavailable, event: { data: geminiUnavailable },
    openai: { type: 'server_error', code: 'server_is_overloaded' }, responsesFailedCode: 'server_error',
  },
  {
    name: 'Gemini 429 RESOURCE_EXHAUSTED', up: 'gemini', status: 429, body: geminiExhausted, event: { data: geminiExhausted },
    openai: { type: 'rate_limit_error', code: 'rate_limit_exceeded' }, responsesFailedCode: 'rate_limit_exceeded',
  },
];

/** Some text, then the vendor's error event, 20 ms apart (the text reaches the client first, so the error is mid-stream). */
function midStream(up: WireStyle, event: SseEvent): ScriptedReply {
  const kept: Record<WireStyle, number> = { 'openai-chat': 3, anthropic: 3, gemini: 1, 'openai-responses': 5 };
  const whole = replyFor(up, { text: 'Partial answer', usage: { input: 5, output: 5 } }, true);
  return { ...whole, sse: [...whole.sse!.slice(0, kept[up]), event], delayMs: 20 };
}

describe('an upstream error reaches a client of another style in that style\'s own error words', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  describe.each(vendorErrors)('$name', (vendor) => {
    const model = modelOf[vendor.up];
    const messages = [{ role: 'user' as const, content: 'hi' }];

    it.each([false, true])('reaches an openai Chat client (stream=%s) as OpenAI\'s type and code, with the vendor\'s message', async (stream) => {
      fixture.upstream.clearQueue();
      fixture.upstream.enqueue({ status: vendor.status, json: vendor.body });
      const error = await caught(stream
        ? (async () => { for await (const _chunk of await fixture.openai.chat.completions.create({ model, messages, stream: true })) void _chunk; })()
        : fixture.openai.chat.completions.create({ model, messages }));
      expect(error.status).toBe(vendor.status);
      expect({ type: error.type, code: error.code }).toEqual(vendor.openai);
      expect(error.message).toContain(vendor.body.error.message);
    });

    it('reaches an openai Responses client (whole) as OpenAI\'s type and code', async () => {
      fixture.upstream.clearQueue();
      fixture.upstream.enqueue({ status: vendor.status, json: vendor.body });
      const error = await caught(fixture.openai.responses.create({ model, input: 'hi' }));
      expect(error.status).toBe(vendor.status);
      expect({ type: error.type, code: error.code }).toEqual(vendor.openai);
      expect(error.message).toContain(vendor.body.error.message);
    });

    it('reaches an openai Chat client mid-stream as an APIError with OpenAI\'s type and code', async () => {
      fixture.upstream.clearQueue();
      fixture.upstream.enqueue(midStream(vendor.up, vendor.event));
      let text = '';
      const error = await caught((async () => {
        for await (const chunk of await fixture.openai.chat.completions.create({ model, messages, stream: true })) text += chunk.choices[0]?.delta.content ?? '';
      })());
      expect(text).not.toBe('');
      expect(error).toBeInstanceOf(Error);
      expect({ type: error.type, code: error.code, message: error.message }).toEqual({ ...vendor.openai, message: vendor.body.error.message });
    });

    it('reaches an openai Responses client mid-stream as an error event and a failed response in OpenAI\'s codes', async () => {
      fixture.upstream.clearQueue();
      fixture.upstream.enqueue(midStream(vendor.up, vendor.event));
      const events: any[] = [];
      for await (const event of await fixture.openai.responses.create({ model, input: 'hi', stream: true })) events.push(event);
      expect(events.find((event) => event.type === 'error')).toMatchObject({ code: vendor.openai.code, message: vendor.body.error.message });
      expect(events.at(-1)).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { code: vendor.responsesFailedCode, message: vendor.body.error.message } } });
    });
  });

  it('an OpenAI insufficient_quota (the channel\'s account) reaches an Anthropic client as a server fault, never billing_error, whole and mid-stream', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue({ status: 429, json: openaiQuota });
    const whole = await caught(fixture.anthropic.messages.create({ model: M.chat, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }));
    expect(whole.status).toBe(502);
    expect(whole.error).toMatchObject({ type: 'error', error: { type: 'api_error', message: expect.stringContaining("channel is out of credit") } });
    fixture.upstream.enqueue(midStream('openai-chat', { data: openaiQuota }));
    const streamed = await caught((async () => {
      for await (const _event of await fixture.anthropic.messages.create({ model: M.chat, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], stream: true })) void _event;
    })());
    expect(streamed.error).toMatchObject({ type: 'error', error: { type: 'api_error', message: openaiQuota.error.message } });
  });

  it('an Anthropic 529 overloaded_error reaches a Gemini client as UNAVAILABLE', async () => {
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue({ status: 529, json: anthropicOverloaded });
    const error = await caught(fixture.gemini.models.generateContent({ model: M.anthropic, contents: 'hi' }));
    expect(error.status).toBe(529);
    expect(JSON.parse(error.message)).toMatchObject({ error: { message: 'Overloaded', status: 'UNAVAILABLE' } });
  });
});
