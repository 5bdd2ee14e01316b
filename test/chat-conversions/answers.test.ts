/**
 * What a Chat Completions client (openai SDK, and raw bytes where the SDK hides them) gets back when
 * its channel speaks Responses, Anthropic or Gemini: envelope fields, usage shape, refusals and content
 * filters, in-band errors in streams, and the charge of each (expectedCharge, docs/behaviour.md "Billing").
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerKey, expectedCharge, modelOf, promptTokensExact, startBillingFixture, tokens, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { anthropicStream, anthropicWhole, geminiStream, replyFor, responsesStream, responsesWhole, streamErrorEvent, type WireStyle } from '../fakes/scripted-vendor-wire.js';

const converted: WireStyle[] = ['openai-responses', 'anthropic', 'gemini'];
const hi = [{ role: 'user' as const, content: 'Say hello' }];

/** The data payloads of a Chat SSE body, parsed (`[DONE]` kept as the string). */
async function readChatEvents(response: Response): Promise<unknown[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .map((event) => event.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n'))
    .filter((data) => data !== '')
    .map((data) => (data === '[DONE]' ? data : JSON.parse(data)));
}

describe('Chat client ← converted upstreams: answers', () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    fixture = await startBillingFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  const spent = (run: () => Promise<unknown>) => fixture.spent(run);
  const rawChat = (body: Record<string, unknown>) =>
    fetch(`${fixture.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  describe.each(converted)('← %s', (style) => {
    const model = modelOf[style];
    const usage = { input: 40, cacheRead: style === 'gemini' ? 8 : 8, output: 12, reasoning: style === 'anthropic' ? 0 : 5 };

    it('non-streamed: envelope (id, object, created, model = the client\'s name), usage details in the SDK\'s shape, billed per the formula', async () => {
      fixture.primary[style].enqueue(replyFor(style, { id: style === 'gemini' ? 'gemRespId9' : style === 'anthropic' ? 'msg_up9' : 'resp_up9', text: 'Hello there', usage }, false));
      let completion!: OpenAI.ChatCompletion;
      const charge = await spent(async () => {
        completion = await fixture.sdk.openai.chat.completions.create({ model, messages: hi });
      });
      expect(completion.object).toBe('chat.completion');
      expect(completion.model).toBe(model);
      expect(typeof completion.id).toBe('string');
      expect(completion.id.length).toBeGreaterThan(0);
      expect(Number.isInteger(completion.created)).toBe(true);
      expect(completion.created).toBeGreaterThan(1_600_000_000);
      expect(completion.choices).toHaveLength(1);
      expect(completion.choices[0]!.index).toBe(0);
      expect(completion.choices[0]!.message.role).toBe('assistant');
      expect(completion.choices[0]!.message.content).toBe('Hello there');
      expect(completion.choices[0]!.message.refusal ?? null).toBeNull();
      expect(completion.choices[0]!.finish_reason).toBe('stop');
      expect(completion.usage).toMatchObject({
        prompt_tokens: 40,
        completion_tokens: 12,
        total_tokens: 52,
        prompt_tokens_details: { cached_tokens: 8 },
        completion_tokens_details: { reasoning_tokens: usage.reasoning },
      });
      expect(charge).toBe(expectedCharge({ input: 40, cacheRead: 8, output: 12 }));
    });

    it('streamed with include_usage: role first, text, one finish chunk, a usage chunk with choices [], [DONE]; billed per the formula', async () => {
      fixture.primary[style].enqueue(replyFor(style, { text: 'Hello there', usage }, true));
      let events: unknown[] = [];
      const charge = await spent(async () => {
        events = await readChatEvents(await rawChat({ model, messages: hi, stream: true, stream_options: { include_usage: true } }));
      });
      const chunks = events.filter((event): event is any => event !== '[DONE]');
      expect(events.at(-1)).toBe('[DONE]');
      expect(chunks[0].choices[0].delta.role).toBe('assistant');
      for (const chunk of chunks) {
        expect(chunk.object).toBe('chat.completion.chunk');
        expect(chunk.model).toBe(model);
        expect(chunk.id).toBe(chunks[0].id);
        expect('usage' in chunk).toBe(true);
      }
      const finishes = chunks.filter((chunk) => chunk.choices[0]?.finish_reason != null);
      expect(finishes.map((chunk) => chunk.choices[0].finish_reason)).toEqual(['stop']);
      const last = chunks.at(-1);
      expect(last.choices).toEqual([]);
      expect(last.usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 12, total_tokens: 52, prompt_tokens_details: { cached_tokens: 8 } });
      expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('Hello there');
      expect(charge).toBe(expectedCharge({ input: 40, cacheRead: 8, output: 12 }));
    });

    it('SDK stream helper: .on("content") deltas, finalChatCompletion() with the text, stop and usage', async () => {
      fixture.primary[style].enqueue(replyFor(style, { text: 'Hello there, friend', usage }, true));
      const stream = fixture.sdk.openai.chat.completions.stream({ model, messages: hi, stream_options: { include_usage: true } });
      const deltas: string[] = [];
      stream.on('content', (delta) => deltas.push(delta));
      const final = await stream.finalChatCompletion();
      expect(deltas.join('')).toBe('Hello there, friend');
      expect(final.choices[0]!.message.content).toBe('Hello there, friend');
      expect(final.choices[0]!.finish_reason).toBe('stop');
      expect(final.model).toBe(model);
      expect(final.usage?.prompt_tokens).toBe(40);
      expect(final.usage?.completion_tokens).toBe(12);
    });

    it('an in-band upstream error mid-stream: the SDK raises (for await and the stream helper), the log records the error', async () => {
      const whole = replyFor(style, { text: 'Hello there, my good friend', usage }, true);
      const cut = whole.sse!.slice(0, style === 'gemini' ? 2 : style === 'anthropic' ? 4 : 6);
      fixture.primary[style].enqueue({ ...whole, sse: [...cut, streamErrorEvent(style, 'Overloaded right now')] });
      const iterated = await (async () => {
        let text = '';
        for await (const chunk of await fixture.sdk.openai.chat.completions.create({ model, messages: hi, stream: true })) text += chunk.choices[0]?.delta.content ?? '';
        return text;
      })().then(
        (text) => ({ text, error: undefined }),
        (error: unknown) => ({ text: undefined, error }),
      );
      expect(iterated.error).toBeInstanceOf(OpenAI.APIError);
      expect(String((iterated.error as Error).message)).toContain('Overloaded right now');
      expect((await fixture.logs()).at(-1).error).toContain('Overloaded right now');

      fixture.primary[style].enqueue({ ...whole, sse: [...cut, streamErrorEvent(style, 'Overloaded right now')] });
      const helper = fixture.sdk.openai.chat.completions.stream({ model, messages: hi });
      await expect(helper.finalChatCompletion()).rejects.toThrow(/Overloaded right now/);
    });

    it('an in-band upstream error mid-stream, read raw: nothing after the error chunk claims a normal finish', async () => {
      const whole = replyFor(style, { text: 'Hello there, my good friend', usage }, true);
      const cut = whole.sse!.slice(0, style === 'gemini' ? 2 : style === 'anthropic' ? 4 : 6);
      fixture.primary[style].enqueue({ ...whole, sse: [...cut, streamErrorEvent(style, 'Overloaded right now')] });
      const events = await readChatEvents(await rawChat({ model, messages: hi, stream: true }));
      const errorAt = events.findIndex((event: any) => event?.error !== undefined);
      expect(errorAt).toBeGreaterThan(0);
      const after = events.slice(errorAt + 1);
      // OpenAI ends a failed stream at its error; a finish_reason "stop" after it reads as a complete answer to
      // clients that do not throw on the error object (e.g. the Vercel AI SDK's last-finish-wins reading).
      expect(after.filter((event: any) => event?.choices?.[0]?.finish_reason != null)).toEqual([]);
    });

    it('an in-band upstream error mid-stream is billed as the docs say: prompt + the text produced, counted locally', async () => {
      const whole = replyFor(style, { text: 'Hello there, my good friend', usage }, true);
      const cut = whole.sse!.slice(0, style === 'gemini' ? 2 : style === 'anthropic' ? 4 : 6);
      fixture.primary[style].enqueue({ ...whole, sse: [...cut, streamErrorEvent(style, 'Overloaded right now')] });
      let text = '';
      const charge = await spent(async () => {
        const events = await readChatEvents(await rawChat({ model, messages: hi, stream: true }));
        text = events.map((event: any) => event?.choices?.[0]?.delta?.content ?? '').join('');
      });
      expect(text.length).toBeGreaterThan(0);
      const log = (await fixture.logs()).at(-1);
      expect(log.usage_source).toBe('local');
      // Anthropic's message_start reported the input (with its cache reads) before the answer: that is billed.
      const input = style === 'anthropic' ? { input: usage.input, cacheRead: usage.cacheRead } : { input: promptTokensExact() };
      expect(charge).toBe(expectedCharge({ ...input, output: tokens(text) }));
    });
  });

  // ---------------------------------------------------------------- refusals and filters

  it('← anthropic refusal, streamed: finish_reason content_filter', async () => {
    const reply = anthropicStream({ text: 'I cannot help with that.', usage: { input: 5, output: 5 } });
    for (const event of reply.sse!) if ((event.data as any).type === 'message_delta') (event.data as any).delta.stop_reason = 'refusal';
    fixture.primary.anthropic.enqueue(reply);
    let finish: string | null = null;
    for await (const chunk of await fixture.sdk.openai.chat.completions.create({ model: modelOf.anthropic, messages: hi, stream: true })) finish = chunk.choices[0]?.finish_reason ?? finish;
    expect(finish).toBe('content_filter');
  });

  it.each([false, true])('← gemini SAFETY finishReason (client streams: %s): finish_reason content_filter', async (stream) => {
    const reply = geminiStream({ text: 'Partial', usage: { input: 5, output: 2 } });
    (reply.sse!.at(-1)!.data as any).candidates[0].finishReason = 'SAFETY';
    fixture.primary.gemini.enqueue(reply);
    if (!stream) {
      const completion = await fixture.sdk.openai.chat.completions.create({ model: modelOf.gemini, messages: hi });
      expect(completion.choices[0]!.finish_reason).toBe('content_filter');
      return;
    }
    let finish: string | null = null;
    for await (const chunk of await fixture.sdk.openai.chat.completions.create({ model: modelOf.gemini, messages: hi, stream: true })) finish = chunk.choices[0]?.finish_reason ?? finish;
    expect(finish).toBe('content_filter');
  });

  it.each([false, true])('← gemini prompt blocked (promptFeedback.blockReason, no candidates; client streams: %s): content_filter, prompt billed', async (stream) => {
    fixture.primary.gemini.enqueue({
      crlf: true,
      sse: [{ data: { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 }, modelVersion: 'gemini-2.5-flash', responseId: 'blk1' } }],
    });
    let finish: string | null = null;
    const charge = await spent(async () => {
      if (!stream) finish = (await fixture.sdk.openai.chat.completions.create({ model: modelOf.gemini, messages: hi })).choices[0]!.finish_reason;
      else for await (const chunk of await fixture.sdk.openai.chat.completions.create({ model: modelOf.gemini, messages: hi, stream: true })) finish = chunk.choices[0]?.finish_reason ?? finish;
    });
    expect(finish).toBe('content_filter');
    expect(charge).toBe(expectedCharge({ input: 7, output: 0 }));
  });

  it('← responses refusal content part (non-streamed): the refusal reaches the Chat client as message.refusal, not as content', async () => {
    const reply = responsesWhole({ text: 'x', usage: { input: 5, output: 5 } });
    const message = (reply.json as any).output.find((item: any) => item.type === 'message');
    message.content = [{ type: 'refusal', refusal: "I'm sorry, I can't help with that." }];
    fixture.primary['openai-responses'].enqueue(reply);
    const completion = await fixture.sdk.openai.chat.completions.create({ model: modelOf['openai-responses'], messages: hi });
    expect(completion.choices[0]!.message.refusal).toBe("I'm sorry, I can't help with that.");
    expect(completion.choices[0]!.message.content ?? null).toBeNull();
  });

  it('← responses refusal (streamed, response.refusal.delta): the refusal reaches the Chat client as delta.refusal, not as content', async () => {
    const reply = responsesStream({ text: 'x', usage: { input: 5, output: 5 } });
    const sse = reply.sse!.map((event) => {
      const data = event.data as any;
      if (data.type === 'response.output_text.delta') return { event: 'response.refusal.delta', data: { ...data, type: 'response.refusal.delta' } };
      if (data.type === 'response.output_text.done') return { event: 'response.refusal.done', data: { type: 'response.refusal.done', sequence_number: data.sequence_number, item_id: data.item_id, output_index: data.output_index, content_index: 0, refusal: 'x' } };
      return event;
    });
    fixture.primary['openai-responses'].enqueue({ ...reply, sse });
    let refusal = '';
    let content = '';
    for await (const chunk of await fixture.sdk.openai.chat.completions.create({ model: modelOf['openai-responses'], messages: hi, stream: true })) {
      refusal += chunk.choices[0]?.delta.refusal ?? '';
      content += chunk.choices[0]?.delta.content ?? '';
    }
    expect(refusal).toBe('x');
    expect(content).toBe('');
  });

  it('non-streaming Chat client ← gemini in-band error after some text: 502 the SDK raises (no 200 with partial text), billed prompt + produced text', async () => {
    const whole = geminiStream({ text: 'Hello there, my good friend', usage: { input: 40, output: 12 } });
    fixture.primary.gemini.enqueue({ ...whole, sse: [...whole.sse!.slice(0, 2), streamErrorEvent('gemini', 'Overloaded right now')] });
    let error: any;
    const charge = await spent(async () => {
      error = await fixture.sdk.openai.chat.completions.create({ model: modelOf.gemini, messages: hi }).catch((caught) => caught);
    });
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(502);
    expect(error.message).toContain('Overloaded right now');
    const produced = whole.sse!.slice(0, 2).map((event: any) => event.data.candidates[0].content.parts[0].text).join('');
    expect(charge).toBe(expectedCharge({ input: promptTokensExact(), output: tokens(produced) }));
  });

  it('non-streaming Chat client ← responses answer with status "failed" (HTTP 200, error object): the SDK raises, not a 200 with finish_reason "stop"', async () => {
    const reply = responsesWhole({ text: 'Hello th', usage: { input: 40, output: 3 } });
    Object.assign(reply.json as any, { status: 'failed', error: { code: 'server_error', message: 'The model failed mid-answer' } });
    fixture.primary['openai-responses'].enqueue(reply);
    const outcome = await fixture.sdk.openai.chat.completions.create({ model: modelOf['openai-responses'], messages: hi }).then(
      (completion) => ({ completion, error: undefined }),
      (error: unknown) => ({ completion: undefined, error }),
    );
    expect(outcome.completion?.choices[0]?.finish_reason).toBeUndefined();
    expect(outcome.error).toBeInstanceOf(OpenAI.APIError);
    expect(String((outcome.error as Error).message)).toContain('The model failed mid-answer');
  });

  it('← anthropic text citations: the text arrives whole, the citations are a logged warning', async () => {
    const reply = anthropicWhole({ text: 'Paris is the capital.', usage: { input: 5, output: 5 } });
    (reply.json as any).content[0].citations = [{ type: 'char_location', cited_text: 'Paris is the capital of France.', document_index: 0, document_title: null, start_char_index: 0, end_char_index: 30 }];
    fixture.primary.anthropic.enqueue(reply);
    const completion = await fixture.sdk.openai.chat.completions.create({ model: modelOf.anthropic, messages: hi });
    expect(completion.choices[0]!.message.content).toBe('Paris is the capital.');
    expect(JSON.parse((await fixture.logs()).at(-1).warnings).join('\n')).toMatch(/citations/);
  });

  it('← responses: max_tokens below 16 (Responses\' minimum) — the upstream is never asked for more output than the reservation covers', async () => {
    fixture.primary['openai-responses'].enqueue(responsesWhole({ text: 'Hello', usage: { input: 5, output: 1 } }));
    const { response } = await fixture.sdk.openai.chat.completions.create({ model: modelOf['openai-responses'], messages: hi, max_tokens: 1 }).withResponse();
    const id = response.headers.get('x-request-id');
    await fixture.settled();
    const sent = (fixture.primary['openai-responses'].requests.at(-1)!.body as any).max_output_tokens;
    expect(sent).toBe(16);
    // docs/behaviour.md, Billing: "So the gateway never asks an upstream for more output than the reservation covered."
    const reservation = (await fixture.reservations()).find((row) => row.id === id)!;
    expect(reservation.amount).toBeGreaterThanOrEqual(expectedCharge({ input: 0, output: sent }));
  });
});
