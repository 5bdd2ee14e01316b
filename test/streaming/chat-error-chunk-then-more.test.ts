/**
 * A same-style Chat stream whose upstream sends an error chunk mid-answer and then more chunks — more
 * text, a usage report, `[DONE]` — in the same network read (an upstream that fails fast: what follows
 * the error arrives before the client could leave). Through the openai SDK, on every database: the SDK
 * raises with the upstream's message, the row records that message (it recorded none, or the gateway's
 * own "ended before its final event"), and the request is charged what it relayed — prompt + the text
 * counted locally, or the usage the upstream reported after its error — with the reservation settled at
 * the row's charge and the wallet moved by exactly it.
 *
 * Then the same error chunk with what follows it in a later write: the SDK raised at the error and left
 * (breaking its loop aborts the request) before the upstream's usage report came. The upstream produces
 * nothing more after its error, so the gateway reads on for that report (USAGE_WAIT_SECONDS), as for a
 * client that leaves at `finish_reason`, and bills it; it billed a local count of the text instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatStream, streamErrorEvent } from '../fakes/scripted-vendor-wire.js';
import type { SseEvent } from '../fakes/scripted-upstream.js';
import { expectedCharge, modelOf, promptText, promptTokensExact, startBillingFixture, tokens, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked } from '../support/booked-request.js';
import { allDialects } from '../support/test-databases.js';

const frame = (event: SseEvent) => `data: ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}\n\n`;

/** The chunks of an answer "Hello there my friend" with usage 10 + 4: role, four texts, finish, usage, [DONE]. */
const answer = chatStream({ text: ['Hello', ' there', ' my', ' friend'], usage: { input: 10, output: 4 } }).sse!;
const [role, hello, there, my, , finish, usage, done] = answer;
const errorChunk = streamErrorEvent('openai-chat', 'Upstream overloaded');

/** Role and two texts one write each; then the error and what follows it in one write. */
const cases: { name: string; after: SseEvent[]; relayedText: string; upstreamUsage: boolean }[] = [
  { name: 'more text and [DONE]', after: [errorChunk, my!, done!], relayedText: 'Hello there my', upstreamUsage: false },
  { name: 'a finish chunk, a usage report and [DONE]', after: [errorChunk, finish!, usage!, done!], relayedText: 'Hello there', upstreamUsage: true },
  { name: 'more text, then the body ends', after: [errorChunk, my!], relayedText: 'Hello there my', upstreamUsage: false },
];

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`a Chat error chunk followed by other chunks, on ${dialect}`, () => {
    let fixture: BillingFixture;
    beforeAll(async () => {
      fixture = await startBillingFixture({ dialect, tokenQuota: 10_000_000, userQuota: 10_000_000 });
    });
    afterAll(async () => fixture?.close());

    for (const { name, after, relayedText, upstreamUsage } of cases) {
      it(`records the upstream's error and charges what was relayed: ${name}`, async () => {
        fixture.primary['openai-chat'].enqueue({ raw: [frame(role!), frame(hello!), frame(there!), after.map(frame).join('')], delayMs: 15 });
        const { result, row, charged } = await booked(fixture, async () => {
          let text = '';
          try {
            for await (const chunk of await fixture.sdk.openai.chat.completions.create({ model: modelOf['openai-chat'], stream: true, max_tokens: 500, messages: [{ role: 'user', content: promptText }] })) text += chunk.choices[0]?.delta.content ?? '';
          } catch (error) {
            return { text, error };
          }
          return { text, error: undefined };
        });
        expect(result!.text).toBe('Hello there');
        expect(String((result!.error as Error | undefined)?.message), 'the SDK raised the upstream error').toContain('Upstream overloaded');
        expect(row.error).toBe('upstream error mid-stream: Upstream overloaded');
        const expected = upstreamUsage ? { input: 10, output: 4 } : { input: promptTokensExact(), output: tokens(relayedText) };
        expect({ input: row.input_tokens, output: row.output_tokens, source: row.usage_source, charged }).toEqual({ ...expected, source: upstreamUsage ? 'upstream' : 'local', charged: expectedCharge(expected) });
      });
    }
  });
}

/** What follows the error chunk, written `delayMs` after it: the client has left by then. */
const laterCases: { name: string; after: SseEvent[]; upstreamUsage: boolean }[] = [
  { name: 'a finish chunk, a usage report and [DONE]', after: [finish!, usage!, done!], upstreamUsage: true },
  { name: 'a usage report alone, then the body ends', after: [usage!], upstreamUsage: true },
  { name: 'nothing: the body ends', after: [], upstreamUsage: false },
];

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`a client that leaves at a Chat error chunk is billed the usage reported after it, on ${dialect}`, () => {
    let fixture: BillingFixture;
    beforeAll(async () => {
      fixture = await startBillingFixture({ dialect, tokenQuota: 10_000_000, userQuota: 10_000_000 });
    });
    afterAll(async () => fixture?.close());

    for (const { name, after, upstreamUsage } of laterCases) {
      it(`${upstreamUsage ? 'bills the upstream\'s report' : 'counts locally'} when the error is followed, once the client left, by ${name}`, async () => {
        const pieces = [frame(role!), frame(hello!), frame(there!), frame(errorChunk), ...(after.length === 0 ? [] : [after.map(frame).join('')])];
        fixture.primary['openai-chat'].enqueue({ raw: pieces, delayMs: 150 });
        const { result, row, charged } = await booked(fixture, async () => {
          let text = '';
          try {
            for await (const chunk of await fixture.sdk.openai.chat.completions.create({ model: modelOf['openai-chat'], stream: true, max_tokens: 500, messages: [{ role: 'user', content: promptText }] })) text += chunk.choices[0]?.delta.content ?? '';
          } catch (error) {
            return { text, error };
          }
          return { text, error: undefined };
        });
        expect(result!.text).toBe('Hello there');
        expect(String((result!.error as Error | undefined)?.message), 'the SDK raised the upstream error').toContain('Upstream overloaded');
        expect(row.error).toBe('upstream error mid-stream: Upstream overloaded');
        const expected = upstreamUsage ? { input: 10, output: 4 } : { input: promptTokensExact(), output: tokens('Hello there') };
        expect({ input: row.input_tokens, output: row.output_tokens, source: row.usage_source, charged }).toEqual({ ...expected, source: upstreamUsage ? 'upstream' : 'local', charged: expectedCharge(expected) });
      });
    }
  });
}
