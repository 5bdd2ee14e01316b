import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../fakes/scripted-upstream.js';
import { chatStream, chatWhole, replyFor, streamErrorEvent, type WireStyle, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { callerKey, expectedCharge, modelOf, promptText, promptTokensExact, startBillingFixture, styles, tokens, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked, J, mapEvents, parseSse } from './responses-support.js';

/**
 * How a Responses client sees an answer that did not simply complete — a length stop, a content filter,
 * `response.failed`, an in-band `error` event, a stream without `response.completed` — from each upstream
 * style, streamed (the SDK's `responses.stream(...).finalResponse()`) and whole; and what it is billed
 * (docs/behaviour.md "Billing": what the upstream reported, else prompt + produced text counted locally).
 * new-api #7241 discarded the usage of `response.incomplete`.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const usage: WireUsage = { input: 40, output: 30 };
const cases = styles.flatMap((up) => [false, true].map((stream) => ({ up, stream })));

async function ask(model: string, stream: boolean, extra: Record<string, unknown> = {}) {
  const body = { model, input: [{ role: 'user' as const, content: promptText }], max_output_tokens: 3, ...extra };
  if (!stream) return fixture.sdk.openai.responses.create(body as any);
  const deltas: string[] = [];
  const runner = fixture.sdk.openai.responses.stream(body as any);
  runner.on('response.output_text.delta', (event) => void deltas.push(event.delta));
  const final = await runner.finalResponse();
  expect(deltas.join('')).toBe(final.output_text);
  return final;
}

describe('a length stop reaches the Responses client as status "incomplete" and is billed at the reported usage', () => {
  it.each(cases)('$up upstream (stream=$stream)', async ({ up, stream }) => {
    fixture.primary[up].enqueue(replyFor(up, { text: ['Once', ' upon', ' a'], stop: 'length', usage }, stream));
    const { result, error, row } = await booked(fixture, () => ask(modelOf[up], stream));
    expect(error).toBeUndefined();
    expect(result!.status).toBe('incomplete');
    expect(result!.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(result!.output_text).toBe('Once upon a');
    expect(result!.usage).toMatchObject({ input_tokens: 40, output_tokens: 30, total_tokens: 70 });
    expect({ source: row.usage_source, input: row.input_tokens, output: row.output_tokens, quota: row.quota }).toEqual({ source: 'upstream', input: 40, output: 30, quota: expectedCharge(usage) });
  });
});

describe('a Gemini length stop seen by a non-streaming Responses client: the message it cut is "incomplete"', () => {
  // Gemini sends the thought signature on the answer's last part, after the text: a signature-only
  // reasoning item then follows the message, and must not take the message's "incomplete" from it.
  it.each([
    ['with a thought summary', 'Counting words.'],
    ['with the signature alone', ''],
  ])('%s', async (_name, thought) => {
    const reply = replyFor('gemini', { thinking: { text: thought, signature: 'c2lnbmF0dXJl' }, text: ['Once', ' upon', ' a'], stop: 'length', usage }, false);
    fixture.primary.gemini.enqueue(reply);
    const { result, error } = await booked(fixture, () => ask(modelOf.gemini, false));
    expect(error).toBeUndefined();
    expect(result!.status).toBe('incomplete');
    const message = result!.output.find((item) => item.type === 'message');
    expect(message).toMatchObject({ type: 'message', status: 'incomplete' });
    expect(result!.output.at(-1)).toMatchObject({ type: 'reasoning', summary: [], encrypted_content: expect.any(String) });
    expect(result!.output_text).toBe('Once upon a');
  });

  it('a Gemini answer that stopped by itself keeps its message "completed"', async () => {
    fixture.primary.gemini.enqueue(replyFor('gemini', { thinking: { text: '', signature: 'c2lnbmF0dXJl' }, text: ['Once', ' upon', ' a'], usage }, false));
    const { result } = await booked(fixture, () => ask(modelOf.gemini, false));
    expect(result!.status).toBe('completed');
    expect(result!.output.find((item) => item.type === 'message')).toMatchObject({ status: 'completed' });
  });
});

/** The upstream's way of saying its content filter stopped the answer. */
function contentFiltered(up: WireStyle, stream: boolean): ScriptedReply {
  const answer = { text: ['Some', ' text'], stop: 'length' as const, usage };
  const reply = replyFor(up, answer, stream);
  switch (up) {
    case 'openai-chat':
      if (!stream) {
        const body = structuredClone(chatWhole(answer).json) as any;
        body.choices[0].finish_reason = 'content_filter';
        return { ...reply, json: body };
      }
      return mapEvents(chatStream(answer), (event) => {
        const data = typeof event.data === 'object' ? structuredClone(event.data) as any : event.data;
        if (data?.choices?.[0]?.finish_reason === 'length') data.choices[0].finish_reason = 'content_filter';
        return { ...event, data };
      });
    case 'openai-responses':
      if (!stream) return { ...reply, json: { ...(reply.json as any), incomplete_details: { reason: 'content_filter' } } };
      return mapEvents(reply, (event) => {
        if (event.event !== 'response.incomplete') return event;
        const data = structuredClone(event.data) as any;
        data.response.incomplete_details = { reason: 'content_filter' };
        return { ...event, data };
      });
    case 'anthropic':
      if (!stream) return { ...reply, json: { ...(reply.json as any), stop_reason: 'refusal' } };
      return mapEvents(reply, (event) => {
        if (event.event !== 'message_delta') return event;
        const data = structuredClone(event.data) as any;
        data.delta.stop_reason = 'refusal';
        return { ...event, data };
      });
    case 'gemini':
      return mapEvents(reply, (event) => {
        const data = structuredClone(event.data) as any;
        if (data.candidates?.[0]?.finishReason === 'MAX_TOKENS') data.candidates[0].finishReason = 'SAFETY';
        return { ...event, data };
      });
  }
}

describe('a content-filter stop reaches the Responses client as incomplete/content_filter and is billed at the reported usage', () => {
  it.each(cases)('$up upstream (stream=$stream)', async ({ up, stream }) => {
    fixture.primary[up].enqueue(contentFiltered(up, stream));
    const { result, error, row } = await booked(fixture, () => ask(modelOf[up], stream));
    expect(error).toBeUndefined();
    expect({ status: result!.status, details: result!.incomplete_details, text: result!.output_text }).toEqual({ status: 'incomplete', details: { reason: 'content_filter' }, text: 'Some text' });
    expect({ source: row.usage_source, quota: row.quota }).toEqual({ source: 'upstream', quota: expectedCharge(usage) });
  });
});

describe('response.failed from a Responses upstream (relayed as sent)', () => {
  /** Text, then `response.failed` carrying an error and the usage so far. */
  function failedStream(withUsage: boolean): ScriptedReply {
    const reply = replyFor('openai-responses', { text: ['Partial', ' answer'], usage }, true);
    return mapEvents(reply, (event) => {
      if (event.event !== 'response.completed') return event;
      const data = structuredClone(event.data) as any;
      data.type = 'response.failed';
      data.response.status = 'failed';
      data.response.error = { code: 'server_error', message: 'The model failed mid-answer' };
      if (!withUsage) data.response.usage = null;
      return { event: 'response.failed', data };
    });
  }

  it('streamed with usage: the SDK sees status "failed" and its error; billed at the reported usage; the log row records the error', async () => {
    fixture.primary['openai-responses'].enqueue(failedStream(true));
    const { result, error, row } = await booked(fixture, () => ask(modelOf['openai-responses'], true, { max_output_tokens: 500 }));
    expect(error).toBeUndefined();
    expect({ status: result!.status, error: result!.error, text: result!.output_text }).toEqual({ status: 'failed', error: { code: 'server_error', message: 'The model failed mid-answer' }, text: 'Partial answer' });
    expect({ source: row.usage_source, quota: row.quota }).toEqual({ source: 'upstream', quota: expectedCharge(usage) });
    expect(row.error).toContain('The model failed mid-answer');
  });

  it('streamed without usage: billed prompt + delivered text, counted locally', async () => {
    fixture.primary['openai-responses'].enqueue(failedStream(false));
    const { result, row } = await booked(fixture, () => ask(modelOf['openai-responses'], true, { max_output_tokens: 500 }));
    expect(result!.status).toBe('failed');
    expect({ source: row.usage_source, input: row.input_tokens, output: row.output_tokens, quota: row.quota }).toEqual({
      source: 'local', input: promptTokensExact(), output: tokens('Partial answer'), quota: expectedCharge({ input: promptTokensExact(), output: tokens('Partial answer') }),
    });
  });

  it('whole (200, status "failed", usage): relayed as sent and billed at the reported usage', async () => {
    const whole = replyFor('openai-responses', { text: 'Partial', usage }, false);
    fixture.primary['openai-responses'].enqueue({ ...whole, json: { ...(whole.json as any), status: 'failed', error: { code: 'server_error', message: 'boom' } } });
    const { result, row } = await booked(fixture, () => ask(modelOf['openai-responses'], false, { max_output_tokens: 500 }));
    expect({ status: result!.status, error: result!.error }).toEqual({ status: 'failed', error: { code: 'server_error', message: 'boom' } });
    expect({ source: row.usage_source, quota: row.quota }).toEqual({ source: 'upstream', quota: expectedCharge(usage) });
  });
});

describe('an in-band error event mid-stream: the Responses SDK raises; billed prompt + delivered text; logged', () => {
  /** Text deltas, then the vendor's mid-stream error event, then the connection closes. */
  function midStreamError(up: WireStyle): ScriptedReply {
    const kept: Record<WireStyle, number> = { 'openai-chat': 3, anthropic: 4, gemini: 2, 'openai-responses': 6 };
    const whole = replyFor(up, { text: ['Partial', ' answer', ' more'], usage }, true);
    return { ...whole, sse: [...whole.sse!.slice(0, kept[up]), streamErrorEvent(up, 'Upstream overloaded')], delayMs: 10 };
  }

  it.each(styles)('%s upstream', async (up) => {
    fixture.primary[up].enqueue(midStreamError(up));
    const seen: string[] = [];
    const { error, row } = await booked(fixture, async () => {
      const runner = fixture.sdk.openai.responses.stream({ model: modelOf[up], input: [{ role: 'user', content: promptText }], max_output_tokens: 500 });
      runner.on('response.output_text.delta', (event) => void seen.push(event.delta));
      return runner.finalResponse();
    });
    expect(error, 'the SDK raises').toBeDefined();
    expect(String(error.message)).toContain('Upstream overloaded');
    const delivered = seen.join('');
    expect(delivered.length).toBeGreaterThan(0);
    expect(row.error).toContain('Upstream overloaded');
    // Anthropic's message_start reported the input before the answer: that is billed, not the local count.
    const input = up === 'anthropic' ? usage.input : promptTokensExact();
    expect({ source: row.usage_source, input: row.input_tokens, output: row.output_tokens, quota: row.quota }).toEqual({
      source: 'local', input, output: tokens(delivered), quota: expectedCharge({ input, output: tokens(delivered) }),
    });
  });

  it.each(['openai-chat', 'anthropic', 'gemini'] as WireStyle[])('streamed, read raw, %s upstream: nothing after the error event says "response.completed"', async (up) => {
    fixture.primary[up].enqueue(midStreamError(up));
    const { result } = await booked(fixture, async () => {
      const response = await fetch(`${fixture.gateway.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' }, body: J({ model: modelOf[up], input: promptText, stream: true }) });
      return parseSse(await response.text());
    });
    const types = result!.map((event) => event.data.type as string);
    const errorAt = types.indexOf('error');
    expect(errorAt, types.join(' ')).toBeGreaterThan(0);
    expect(types.slice(errorAt), types.slice(errorAt).join(' ')).not.toContain('response.completed');
  });

  it('an anthropic upstream that errors after 200 words: the words are billed, not message_start\'s interim output_tokens: 1', async () => {
    const texts = Array.from({ length: 200 }, (_, i) => ` word${i % 10}`);
    const whole = replyFor('anthropic', { text: texts, usage }, true, { startUsage: { input: 40, output: 1 } });
    const contentEnd = whole.sse!.findIndex((event) => event.event === 'content_block_stop');
    fixture.primary.anthropic.enqueue({ ...whole, sse: [...whole.sse!.slice(0, contentEnd), streamErrorEvent('anthropic', 'Upstream overloaded')] });
    const { error, row } = await booked(fixture, () => ask(modelOf.anthropic, true, { max_output_tokens: 1000 }));
    expect(String(error?.message)).toContain('Upstream overloaded');
    expect(row.output_tokens, `billed ${row.quota} (source ${row.usage_source})`).toBe(tokens(texts.join('')));
  });

  it('non-streaming client ← gemini upstream that errors in-band after some text: not a 200 "completed" answer', async () => {
    fixture.primary.gemini.enqueue(midStreamError('gemini'));
    const { result, error, row } = await booked(fixture, () => ask(modelOf.gemini, false, { max_output_tokens: 500 }));
    // Either an error the SDK raises, or a response that says it failed: never a normal completion.
    if (error === undefined) expect(result!.status, `answered 200 with ${JSON.stringify(result).slice(0, 300)}`).toBe('failed');
    else expect(String(error.message)).toContain('Upstream overloaded');
    expect(row.error ?? '').toContain('Upstream overloaded');
  });
});

describe('a Responses upstream stream that ends without response.completed (relayed as sent)', () => {
  it.each(['end', 'reset'] as const)('ending %s: the SDK raises "The upstream stream was interrupted."', async (ending) => {
    fixture.primary['openai-responses'].enqueue({ ...replyFor('openai-responses', { text: ['Hello', ' there'] }, true, { terminal: false }), ending, delayMs: 10 });
    const { error, row } = await booked(fixture, () => ask(modelOf['openai-responses'], true, { max_output_tokens: 500 }));
    expect(error).toBeDefined();
    expect(String(error.message)).toContain('The upstream stream was interrupted.');
    expect(row.error).toMatch(/interrupted/);
    expect(row.usage_source).toBe('local');
  });
});
