/**
 * The edges of the wait for a usage report after a client left (usage-wait.test.ts), from the audit of
 * the change that made it: a stream of several choices is never waited for (another may still be
 * generating); the endings that can come during the wait (an in-band error and a reset, a report inside
 * the finish chunk, a stream that sends only comments until the wait runs out) leave one row, a settled
 * reservation and the right source; the decoder path (CRLF frames), a one-event answer, a tool-call
 * finish, a non-streamed body cut after its 200, embeddings, and a shutdown during the wait.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SseEvent } from '../fakes/scripted-upstream.js';
import { chatStream, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { booked } from '../support/booked-request.js';
import { buildClientRequest, callerKey, expectedCharge, modelOf, promptText, promptTokensExact, startBillingFixture, tokens, type BillingFixture } from './billing-fixture.js';
import { chatLeftAtFinish, reasoningReport, rowOf } from './usage-wait-helpers.js';

let fixture: BillingFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const reported = reasoningReport;
const usageJson = { prompt_tokens: 1_200, completion_tokens: 2_000, total_tokens: 3_200, prompt_tokens_details: { cached_tokens: 1_024 }, completion_tokens_details: { reasoning_tokens: 1_900 } };
const base = { id: 'chatcmpl-up1', object: 'chat.completion.chunk', created: 1_760_000_000, model: 'gpt-4o-mini' };
const chunk = (index: number, delta: Record<string, unknown>, finish: string | null = null): SseEvent => ({ data: { ...base, choices: [{ index, delta, logprobs: null, finish_reason: finish }], usage: null } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('what is waited for, and what is not', () => {
  it('n=2: choice 0 finished but choice 1 still generating — a client leaving then is mid-answer: the call ends at once, the text read so far counted locally', async () => {
    // A gateway that waited (300 s) would read on to the report, ~2.4 s later, and bill it.
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '300' } });
    const sse: SseEvent[] = [
      chunk(0, { role: 'assistant', content: '' }),
      chunk(1, { role: 'assistant', content: '' }),
      chunk(0, { content: 'Hi' }),
      chunk(1, { content: 'Hello' }),
      chunk(0, {}, 'stop'),
      ...Array.from({ length: 6 }, () => chunk(1, { content: ' more words' })),
      chunk(1, {}, 'stop'),
      { data: { ...base, choices: [], usage: usageJson } },
      { data: '[DONE]' },
    ];
    fixture.primary['openai-chat'].enqueue({ sse, delayMs: 300 });
    const logsBefore = (await fixture.logs()).length;
    const stream = await fixture.sdk.openai.chat.completions.create({ model: modelOf['openai-chat'], messages: [{ role: 'user', content: promptText }], stream: true, n: 2, stream_options: { include_usage: true } });
    let first = '';
    for await (const c of stream) {
      const choice = c.choices.find((x) => x.index === 0);
      first += choice?.delta.content ?? '';
      if (choice?.finish_reason) break;
    }
    expect(first).toBe('Hi');
    expect(await rowOf(fixture, logsBefore)).toMatchObject({ status: 499, source: 'local' });
  });

  it('a one-event answer (its text and finish in one chunk, the report after it): billed the report', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
    const sse: SseEvent[] = [chunk(0, { role: 'assistant', content: 'Hello there' }, 'stop'), { data: { ...base, choices: [], usage: usageJson } }, { data: '[DONE]' }];
    fixture.primary['openai-chat'].enqueue({ sse, delayMs: 300 });
    const logsBefore = (await fixture.logs()).length;
    expect(await chatLeftAtFinish(fixture)).toBe('Hello there');
    expect(await rowOf(fixture, logsBefore)).toMatchObject({ status: 499, source: 'upstream', input: 1_200, output: 2_000 });
  });

  it('an empty finish_reason ("") is no finish: a client leaving then is not waited for', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '300' } });
    const sse: SseEvent[] = [chunk(0, { role: 'assistant', content: '' }), chunk(0, { content: 'He' }), chunk(0, { content: 'llo' }, ''), chunk(0, { content: ' there' }), chunk(0, {}, 'stop'), { data: { ...base, choices: [], usage: usageJson } }, { data: '[DONE]' }];
    fixture.primary['openai-chat'].enqueue({ sse, delayMs: 400 });
    const logsBefore = (await fixture.logs()).length;
    const stream = await fixture.sdk.openai.chat.completions.create({ model: modelOf['openai-chat'], messages: [{ role: 'user', content: promptText }], stream: true, stream_options: { include_usage: true } });
    for await (const c of stream) if (c.choices[0]?.delta.content === 'llo') break;
    expect(await rowOf(fixture, logsBefore)).toMatchObject({ status: 499, source: 'local', output: tokens('Hello') });
  });

  it('tool-call stream left at finish_reason "tool_calls": billed the report', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
    fixture.primary['openai-chat'].enqueue({ ...chatStream({ tools: [{ id: 'call_1', name: 'get_weather', args: '{"city":"Paris"}' }], usage: reported }), delayMs: 120 });
    const logsBefore = (await fixture.logs()).length;
    const stream = await fixture.sdk.openai.chat.completions.create({ model: modelOf['openai-chat'], messages: [{ role: 'user', content: promptText }], stream: true, stream_options: { include_usage: true } });
    for await (const c of stream) if (c.choices[0]?.finish_reason) break;
    expect(await rowOf(fixture, logsBefore)).toMatchObject({ status: 499, source: 'upstream', output: 2_000 });
  });

  it('decoder path (CRLF frames): leaving at the finish is billed the report', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
    fixture.primary['openai-chat'].enqueue({ ...chatStream({ text: ['Hello', ' there'], usage: reported }), crlf: true, delayMs: 150 });
    const logsBefore = (await fixture.logs()).length;
    await chatLeftAtFinish(fixture);
    expect(await rowOf(fixture, logsBefore)).toMatchObject({ status: 499, source: 'upstream', output: 2_000 });
  });
});

describe('endings during the wait (the books balance)', () => {
  it('client leaves at the finish, the upstream then sends an in-band error and resets: one row, reservation closed, local count', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '5' } });
    const events = chatStream({ text: ['Hello', ' there'], usage: reported }).sse!.slice(0, -2);
    events.push({ data: { error: { message: 'boom', type: 'server_error' } } });
    fixture.primary['openai-chat'].enqueue({ sse: events, delayMs: 150, ending: 'reset' });
    const { row } = await booked(fixture, () => chatLeftAtFinish(fixture!));
    expect({ status: row.status, source: row.usage_source, output: row.output_tokens }).toEqual({ status: 499, source: 'local', output: tokens('Hello there') });
  });

  it('client leaves at the finish; the upstream sends only comments from then on: the wait (1 s) ends the call, keep-alive on', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '1', STREAM_KEEPALIVE_SECONDS: '1' } });
    const events = chatStream({ text: ['Hello', ' there'], usage: reported }).sse!.slice(0, -2);
    const raw = events.map((e) => `data: ${JSON.stringify(e.data)}\n\n`);
    for (let i = 0; i < 600; i++) raw.push(': still here\n\n');
    fixture.primary['openai-chat'].enqueue({ raw, delayMs: 100, ending: 'hang' });
    const logsBefore = (await fixture.logs()).length;
    expect(await chatLeftAtFinish(fixture)).toBe('Hello there');
    expect(await rowOf(fixture, logsBefore)).toMatchObject({ status: 499, source: 'local' });
  });

  it('usage inside the finish chunk itself: billed the report, no wait needed', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '300' } });
    const sse: SseEvent[] = [chunk(0, { role: 'assistant', content: '' }), chunk(0, { content: 'Hello' }), { data: { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: usageJson } }, { data: '[DONE]' }];
    fixture.primary['openai-chat'].enqueue({ sse, delayMs: 150, ending: 'hang' });
    const logsBefore = (await fixture.logs()).length;
    await chatLeftAtFinish(fixture);
    expect(await rowOf(fixture, logsBefore)).toMatchObject({ status: 499, source: 'upstream', input: 1_200, output: 2_000, quota: expectedCharge({ input: 1_200, cacheRead: 1_024, output: 2_000 }) });
  });

  it('non-streamed chat: client leaves after the 2xx, the upstream then resets mid-body: one row, reservation closed, prompt charged', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
    fixture.primary['openai-chat'].enqueue({ headers: { 'content-type': 'application/json' }, raw: ['{"id":"x","choices":[', '{"index":0'], delayMs: 800, ending: 'reset' });
    const controller = new AbortController();
    const request = buildClientRequest(fixture.gateway.url, 'openai-chat', modelOf['openai-chat'], false, 4_000, controller.signal);
    const { row } = await booked(fixture, async () => {
      const sent = fetch(request.url, request.init).catch(() => undefined);
      await sleep(400);
      controller.abort();
      await sent;
      await sleep(1_000);
    });
    expect({ status: row.status, input: row.input_tokens }).toEqual({ status: 499, input: promptTokensExact() });
  });

  it('non-streamed embeddings: client leaves after the 2xx, body later: billed the body usage, books balanced', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
    const body = JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'x', usage: { prompt_tokens: 777, total_tokens: 777 } });
    fixture.primary['openai-chat'].enqueue({ headers: { 'content-type': 'application/json' }, raw: [body.slice(0, 10), body.slice(10)], delayMs: 800 });
    const controller = new AbortController();
    const { row } = await booked(fixture, async () => {
      const sent = fetch(`${fixture!.gateway.url}/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: modelOf['openai-chat'], input: 'hello' }), signal: controller.signal }).catch(() => undefined);
      await sleep(400);
      controller.abort();
      await sent;
    });
    expect({ status: row.status, source: row.usage_source, input: row.input_tokens }).toEqual({ status: 499, source: 'upstream', input: 777 });
  });

  it('a shutdown during the wait (USAGE_WAIT_SECONDS=60) ends within SHUTDOWN_TIMEOUT, not the wait', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '60', SHUTDOWN_TIMEOUT: '1' } });
    const events = chatStream({ text: ['Hello', ' there'], usage: reported }).sse!.slice(0, -2);
    fixture.primary['openai-chat'].enqueue({ sse: events, delayMs: 100, ending: 'hang' });
    await chatLeftAtFinish(fixture);
    await sleep(100);
    const current = fixture;
    fixture = undefined;
    const closing = Date.now();
    await current.gateway.close();
    // Ended by SHUTDOWN_TIMEOUT (1 s), nowhere near the 60 s wait: a bound no slow machine comes near.
    expect(Date.now() - closing).toBeLessThan(15_000);
    for (const upstream of Object.values(current.primary)) await upstream.close();
  }, 20_000);
});
