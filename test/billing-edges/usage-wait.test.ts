import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptedReply, SseEvent } from '../fakes/scripted-upstream.js';
import { chatStream, replyFor, type WireStyle, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { buildClientRequest, expectedCharge, modelOf, promptText, promptTokensExact, startBillingFixture, styles, tokens, type BillingFixture } from './billing-fixture.js';
import { chatLeftAtFinish, reasoningReport, rowOf } from './usage-wait-helpers.js';

/**
 * A client that leaves once the upstream has produced its whole answer, before the answer's usage report
 * (docs/behaviour.md "Billing", USAGE_WAIT_SECONDS). The commonest such client is code that stops at the
 * finish: `for await (const chunk of stream) { …; if (chunk.choices[0].finish_reason) break; }` — the
 * openai SDK aborts the request when the loop breaks, and OpenAI sends the usage in a chunk of its own
 * after the finish. Billed by a local count of the visible text, such a request would pay no reasoning
 * tokens and full price for cached ones; the gateway reads on for the report instead (bounded), which
 * costs the upstream nothing more: its answer is done.
 */
let fixture: BillingFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const reported = reasoningReport;
const words = ['Hello', ' there', ' my', ' friend'];
const wordsText = words.join('');
const billedReport = expectedCharge({ input: reported.input, cacheRead: reported.cacheRead, output: reported.output });
const billedLocally = (text: string) => expectedCharge({ input: promptTokensExact(), output: tokens(text) });

/** The chat stream of `words` with `reported`, one event per write, `delayMs` apart (so the client's leaving lands between the finish and the usage). */
function chatStreamApart(delayMs: number): ScriptedReply {
  return { ...chatStream({ text: words, usage: reported }), delayMs };
}

describe('a streaming client that leaves at the finish_reason is billed the usage report that follows it', () => {
  it('openai SDK chat client → OpenAI channel: the reasoning and cached tokens of the report, not a local count', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
    fixture.primary['openai-chat'].enqueue(chatStreamApart(150));
    const logsBefore = (await fixture.logs()).length;
    expect(await chatLeftAtFinish(fixture)).toBe(wordsText);
    expect(await rowOf(fixture, logsBefore)).toEqual({ status: 499, source: 'upstream', input: reported.input, output: reported.output, quota: billedReport });
    // The gateway read the report and let go: the upstream's answer was not left hanging.
    expect(fixture.primary['openai-chat'].requests).toHaveLength(1);
  });

  it('openai SDK completions client → OpenAI channel: the same', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
    const base = { id: 'cmpl-up1', object: 'text_completion', created: 1_760_000_000, model: 'gpt-3.5-turbo-instruct' };
    const choice = (text: string, finish: string | null) => ({ ...base, choices: [{ text, index: 0, logprobs: null, finish_reason: finish }] });
    const sse: SseEvent[] = [...words.map((word) => ({ data: choice(word, null) })), { data: choice('', 'stop') }];
    sse.push({ data: { ...base, choices: [], usage: { prompt_tokens: 1_200, completion_tokens: 2_000, total_tokens: 3_200, prompt_tokens_details: { cached_tokens: 1_024 }, completion_tokens_details: { reasoning_tokens: 1_900 } } } }, { data: '[DONE]' });
    fixture.primary['openai-chat'].enqueue({ sse, delayMs: 150 });
    const logsBefore = (await fixture.logs()).length;
    const stream = await fixture.sdk.openai.completions.create({ model: modelOf['openai-chat'], prompt: promptText, stream: true, stream_options: { include_usage: true } });
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? '';
      if (chunk.choices[0]?.finish_reason) break;
    }
    expect(text).toBe(wordsText);
    expect(await rowOf(fixture, logsBefore)).toMatchObject({ status: 499, source: 'upstream', input: reported.input, output: reported.output, quota: billedReport });
  });

  it('USAGE_WAIT_SECONDS=0: the upstream call ends at once and the visible text is counted locally (the setting turns the wait off)', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '0' } });
    fixture.primary['openai-chat'].enqueue(chatStreamApart(150));
    const logsBefore = (await fixture.logs()).length;
    expect(await chatLeftAtFinish(fixture)).toBe(wordsText);
    expect(await rowOf(fixture, logsBefore)).toEqual({ status: 499, source: 'local', input: promptTokensExact(), output: tokens(wordsText), quota: billedLocally(wordsText) });
  });

  it('a report that never comes: once the wait (1 s) runs out the upstream call ends and the text is counted locally; the reservation is settled', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '1' } });
    // Everything up to the finish, then silence: no usage chunk, no [DONE].
    const events = chatStream({ text: words, usage: reported }).sse!.slice(0, -2);
    fixture.primary['openai-chat'].enqueue({ sse: events, delayMs: 100, ending: 'hang' });
    const logsBefore = (await fixture.logs()).length;
    expect(await chatLeftAtFinish(fixture)).toBe(wordsText);
    expect(await rowOf(fixture, logsBefore)).toEqual({ status: 499, source: 'local', input: promptTokensExact(), output: tokens(wordsText), quota: billedLocally(wordsText) });
  });

  it('a client that leaves mid-answer is not waited for (USAGE_WAIT_SECONDS=300): the upstream call ends at once, the text so far counted locally', async () => {
    fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { USAGE_WAIT_SECONDS: '300' } });
    // The report would come 2 s later: a gateway that read on for it would bill it (and settle seconds later).
    fixture.primary['openai-chat'].enqueue(chatStreamApart(400));
    const logsBefore = (await fixture.logs()).length;
    const stream = await fixture.sdk.openai.chat.completions.create({ model: modelOf['openai-chat'], messages: [{ role: 'user', content: promptText }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (text !== '') break;
    }
    expect(text).toBe('Hello');
    expect(await rowOf(fixture, logsBefore)).toEqual({ status: 499, source: 'local', input: promptTokensExact(), output: tokens('Hello'), quota: billedLocally('Hello') });
  });
});

/** The upstreams that answer a non-streamed request with one JSON document (Gemini's are always streamed). */
const wholeAnswerUpstreams: WireStyle[] = ['openai-chat', 'openai-responses', 'anthropic'];

/** The vendor's whole answer, its headers and first bytes at once, the rest `delayMs` later. */
function wholeAnswerInTwo(upstream: WireStyle, delayMs: number): ScriptedReply {
  const body = JSON.stringify(replyFor(upstream, { text: wordsText, usage: reported }, false).json);
  return { headers: { 'content-type': 'application/json' }, raw: [body.slice(0, 10), body.slice(10)], delayMs };
}

describe('a non-streaming client that leaves after the upstream answered 200, while the body is coming, is billed the body\'s usage', () => {
  for (const client of styles) {
    for (const upstream of wholeAnswerUpstreams) {
      it(`${client} client → ${upstream} upstream`, async () => {
        fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
        fixture.primary[upstream].enqueue(wholeAnswerInTwo(upstream, 800));
        const logsBefore = (await fixture.logs()).length;
        const controller = new AbortController();
        const request = buildClientRequest(fixture.gateway.url, client, modelOf[upstream], false, 4_000, controller.signal);
        const sent = fetch(request.url, request.init).catch(() => undefined);
        // The 200 and the first bytes are at the gateway by now; the rest of the body is not.
        await new Promise((resolve) => setTimeout(resolve, 400));
        controller.abort();
        await sent;
        const row = await rowOf(fixture, logsBefore);
        // Anthropic's input_tokens leaves the cache reads out; every style's report means the same 1,200 in all.
        expect(row).toEqual({ status: 499, source: 'upstream', input: reported.input, output: reported.output, quota: billedReport });
      });
    }
  }
});
