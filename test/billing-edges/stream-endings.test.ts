import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../fakes/scripted-upstream.js';
import { anthropicStream, geminiStream, replyAsAsked, replyFor, type WireStyle, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import {
  buildClientRequest, expectedCharge, modelOf, promptTokensExact, readSse, sendWithSdk, startBillingFixture, styles, tokens,
  type BillingFixture,
} from './billing-fixture.js';
import { settledRow } from '../support/booked-request.js';

/**
 * Client disconnects mid-stream, upstream cuts, resets and clean EOFs mid-stream, upstreams that never
 * report usage. Rule (docs/behaviour.md "Billing"): bill what the upstream reported as final; else, when an
 * upstream answered, the prompt plus the produced text counted locally (exact o200k) — the prompt as the
 * upstream reported it before its answer where it did (Anthropic's message_start); the reservation is
 * always settled. The streamed cases read the raw body, to leave at a precise event or to see exactly
 * what arrived before a cut (the SDKs raise on a cut); the others go through the SDKs.
 */
const finalUsage: WireUsage = { input: 40, output: 30 };
const words = ['Hello', ' there', ' my', ' friend'];
const wordsText = words.join('');

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

/** The request's one new log row, after checking its reservation was settled at the row's charge. */
const lastRowAndBooks = (logsBefore: number) => settledRow(fixture, logsBefore);

describe('a client that disconnects mid-stream pays the prompt + what was produced, counted locally', () => {
  for (const client of styles) {
    for (const upstream of styles) {
      it(`${client} client → ${upstream} upstream`, async () => {
        // Usage only at the very end, which the upstream never reaches: the client leaves after the first text.
        fixture.primary[upstream].enqueue({ ...replyFor(upstream, { text: words, usage: finalUsage }, true), delayMs: 300 });
        const logsBefore = (await fixture.logs()).length;
        const before = await fixture.balances();
        const controller = new AbortController();
        const request = buildClientRequest(fixture.gateway.url, client, modelOf[upstream], true, 500, controller.signal);
        const response = await fetch(request.url, request.init);
        expect(response.status).toBe(200);
        const read = await readSse(response, client, (text) => text.length > 0);
        controller.abort();
        expect(read.text).toBe('Hello');
        const row = await lastRowAndBooks(logsBefore);
        // Anthropic's message_start reported the input (40) before the answer: that is what it bills.
        const input = upstream === 'anthropic' ? finalUsage.input : promptTokensExact();
        const expected = expectedCharge({ input, output: tokens('Hello') });
        expect({ status: row.status, source: row.usage_source, input: row.input_tokens, output: row.output_tokens, quota: row.quota }).toEqual({
          status: 499, source: 'local', input, output: tokens('Hello'), quota: expected,
        });
        const after = await fixture.balances();
        expect(after.tokenUsed - before.tokenUsed).toBe(expected);
        expect(before.tokenRemain - after.tokenRemain).toBe(expected);
      });
    }
  }

  it('gemini client → gemini upstream that reports cumulative usage on every chunk: billed at the last report received', async () => {
    fixture.primary.gemini.enqueue({ ...geminiStream({ text: words, usage: finalUsage }, { usageAt: (i) => ({ input: 40, output: i + 1 }) }), delayMs: 300 });
    const logsBefore = (await fixture.logs()).length;
    const controller = new AbortController();
    const request = buildClientRequest(fixture.gateway.url, 'gemini', modelOf.gemini, true, 500, controller.signal);
    const response = await fetch(request.url, request.init);
    const read = await readSse(response, 'gemini', (text) => text.length > 0);
    controller.abort();
    expect(read.text).toBe('Hello');
    const row = await lastRowAndBooks(logsBefore);
    expect({ source: row.usage_source, quota: row.quota }).toEqual({ source: 'upstream', quota: expectedCharge({ input: 40, output: 1 }) });
  });
});

/** The whole answer's text, then no final events, ended by a reset or a clean EOF. */
function truncated(upstream: WireStyle, ending: 'reset' | 'end'): ScriptedReply {
  // Anthropic's message_start reports the input and output_tokens: 1, as Anthropic does; no message_delta follows.
  const options = upstream === 'anthropic' ? { terminal: false, startUsage: { input: 40, output: 1 } } : { terminal: false };
  return { ...replyFor(upstream, { text: words }, true, options), ending };
}

describe('an upstream cut after several chunks, before any final usage: the prompt (as reported at the start, where it was) + the delivered text counted locally', () => {
  for (const client of styles) {
    for (const upstream of styles) {
      for (const ending of ['reset', 'end'] as const) {
        it(`${client} client → ${upstream} upstream, ${ending === 'reset' ? 'connection reset' : 'clean EOF without its final events'}`, async () => {
          fixture.primary[upstream].enqueue(truncated(upstream, ending));
          const logsBefore = (await fixture.logs()).length;
          const request = buildClientRequest(fixture.gateway.url, client, modelOf[upstream], true, 500);
          const response = await fetch(request.url, request.init);
          expect(response.status).toBe(200);
          const read = await readSse(response, client);
          expect(read.text).toBe(wordsText);
          const row = await lastRowAndBooks(logsBefore);
          // No final usage came: Anthropic's message_start input (40) stands, its interim output_tokens: 1 does not.
          const delivered = tokens(wordsText);
          const input = upstream === 'anthropic' ? 40 : promptTokensExact();
          expect({ source: row.usage_source, input: row.input_tokens, output: row.output_tokens, quota: row.quota }).toEqual({
            source: 'local', input, output: delivered, quota: expectedCharge({ input, output: delivered }),
          });
        });
      }
    }
  }
});

describe('an upstream cut right after its final usage report is billed at the reported usage', () => {
  const answer = { text: ['Hello', ' there'], usage: finalUsage };
  const cases: Record<WireStyle, () => ScriptedReply> = {
    'openai-chat': () => {
      const reply = replyFor('openai-chat', answer, true);
      return { ...reply, sse: reply.sse!.slice(0, -1), ending: 'reset' }; // usage chunk sent, no [DONE]
    },
    'openai-responses': () => ({ ...replyFor('openai-responses', answer, true), ending: 'reset' }),
    anthropic: () => {
      const reply = anthropicStream(answer);
      return { ...reply, sse: reply.sse!.slice(0, -1), ending: 'reset' }; // message_delta sent, no message_stop
    },
    gemini: () => ({ ...replyFor('gemini', answer, true), ending: 'reset' }),
  };
  for (const client of styles) {
    for (const upstream of styles) {
      it(`${client} client → ${upstream} upstream`, async () => {
        fixture.primary[upstream].enqueue(cases[upstream]());
        const logsBefore = (await fixture.logs()).length;
        const request = buildClientRequest(fixture.gateway.url, client, modelOf[upstream], true, 500);
        const response = await fetch(request.url, request.init);
        expect((await readSse(response, client)).text).toBe('Hello there');
        const row = await lastRowAndBooks(logsBefore);
        expect({ source: row.usage_source, quota: row.quota }).toEqual({ source: 'upstream', quota: expectedCharge(finalUsage) });
      });
    }
  }
});

describe('an upstream that never reports usage: the prompt + the reply are counted locally', () => {
  // Anthropic always reports usage, so only the other three upstream styles.
  for (const client of styles) {
    for (const upstream of ['openai-chat', 'openai-responses', 'gemini'] as WireStyle[]) {
      for (const stream of [true, false]) {
        it(`${client} client → ${upstream} upstream (${stream ? 'stream' : 'whole'})`, async () => {
          fixture.primary[upstream].enqueue(replyAsAsked(upstream, { text: words }));
          const logsBefore = (await fixture.logs()).length;
          expect(await sendWithSdk(fixture.sdk, client, modelOf[upstream], stream, 500)).toBe(wordsText);
          const row = await lastRowAndBooks(logsBefore);
          const expected = expectedCharge({ input: promptTokensExact(), output: tokens(wordsText) });
          expect({ source: row.usage_source, input: row.input_tokens, output: row.output_tokens, quota: row.quota }).toEqual({
            source: 'local', input: promptTokensExact(), output: tokens(wordsText), quota: expected,
          });
        });
      }
    }
  }
});

describe('an Anthropic upstream with a long answer and a clean EOF before message_delta/message_stop', () => {
  for (const client of styles) {
    it(`${client} client: the 200 delivered words are billed, not message_start's interim output_tokens: 1`, async () => {
      const texts = Array.from({ length: 200 }, (_, i) => ` word${i % 10}`);
      fixture.primary.anthropic.enqueue({ ...anthropicStream({ text: texts }, { terminal: false, startUsage: { input: 40, output: 1 } }), ending: 'end' });
      const logsBefore = (await fixture.logs()).length;
      const request = buildClientRequest(fixture.gateway.url, client, modelOf.anthropic, true, 1000);
      const response = await fetch(request.url, request.init);
      const read = await readSse(response, client);
      expect(read.text).toBe(texts.join(''));
      const row = await lastRowAndBooks(logsBefore);
      const delivered = tokens(texts.join(''));
      expect({ source: row.usage_source, input: row.input_tokens, output: row.output_tokens, quota: row.quota }).toEqual({
        source: 'local', input: 40, output: delivered, quota: expectedCharge({ input: 40, output: delivered }),
      });
    });
  }
});

describe("an Anthropic-style upstream whose message_start reports 0 input (some proxies), cut before message_delta", () => {
  it('bills the prompt counted locally, not 0', async () => {
    fixture.primary.anthropic.enqueue({ ...anthropicStream({ text: words }, { terminal: false, startUsage: { input: 0, output: 0 } }), ending: 'end' });
    const logsBefore = (await fixture.logs()).length;
    const request = buildClientRequest(fixture.gateway.url, 'anthropic', modelOf.anthropic, true, 500);
    const response = await fetch(request.url, request.init);
    expect((await readSse(response, 'anthropic')).text).toBe(wordsText);
    const row = await lastRowAndBooks(logsBefore);
    expect({ source: row.usage_source, input: row.input_tokens }).toEqual({ source: 'local', input: promptTokensExact() });
  });
});
