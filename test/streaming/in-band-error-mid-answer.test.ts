/**
 * An upstream that sends some text and then an in-band error event (its vendor's own), every client
 * style × every upstream style (same-style pass-through and converted), through the official SDKs.
 * Client: the SDK raises (not a normal end) with the upstream's message — a Gemini client on a Gemini
 * channel too, which gets the error bare, as Google writes it. Log: the row's `error` carries that message
 * (a Chat pass-through too). Money: one row, reservation settled, charged prompt + the delivered text (the
 * upstream reported no usage).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, streamErrorEvent, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { expectedCharge, modelOf, promptText, promptTokensExact, startBillingFixture, styles, tokens, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked } from '../support/booked-request.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 10_000_000, userQuota: 10_000_000 });
});
afterAll(async () => fixture?.close());

const words = ['Hello', ' there', ' my', ' friend'];

/** Every event up to the last text delta (terminal: false), then the vendor's in-band error. */
function textThenError(up: WireStyle) {
  const reply = replyFor(up, { text: words }, true, up === 'anthropic' ? { terminal: false, startUsage: { input: 40, output: 1 } } : { terminal: false });
  return { ...reply, sse: [...reply.sse!, streamErrorEvent(up, 'Upstream overloaded')], delayMs: 15 };
}

/** Streams through the style's SDK; returns the text seen and the error raised (if any). */
async function streamSdk(client: WireStyle, model: string): Promise<{ text: string; error: any }> {
  let text = '';
  try {
    switch (client) {
      case 'openai-chat':
        for await (const chunk of await fixture.sdk.openai.chat.completions.create({ model, stream: true, max_tokens: 500, messages: [{ role: 'user', content: promptText }] })) text += chunk.choices[0]?.delta.content ?? '';
        break;
      case 'openai-responses':
        for await (const event of await fixture.sdk.openai.responses.create({ model, stream: true, max_output_tokens: 500, input: [{ role: 'user', content: promptText }] })) {
          if (event.type === 'response.output_text.delta') text += event.delta;
          // The openai SDK yields a Responses `event: error` as an event (it raises only for `data.error`): that is the style's error.
          if (event.type === 'error') throw Object.assign(new Error(`error event: ${event.message}`), { event });
          if (event.type === 'response.failed') throw Object.assign(new Error(`response.failed: ${event.response.error?.message}`), { failed: event.response });
        }
        break;
      case 'anthropic': {
        const stream = fixture.sdk.anthropic.messages.stream({ model, max_tokens: 500, messages: [{ role: 'user', content: promptText }] });
        stream.on('text', (delta) => { text += delta; });
        await stream.finalMessage();
        break;
      }
      case 'gemini':
        for await (const chunk of await fixture.sdk.gemini.models.generateContentStream({ model, contents: [{ role: 'user', parts: [{ text: promptText }] }], config: { maxOutputTokens: 500 } })) text += chunk.text ?? '';
        break;
    }
  } catch (error) {
    return { text, error };
  }
  return { text, error: undefined };
}

describe('an in-band error after some text: the SDK raises and the request is billed prompt + delivered text', () => {
  for (const client of styles) {
    for (const up of styles) {
      it(`${client} client ← ${up} upstream`, async () => {
        fixture.primary[up].enqueue(textThenError(up));
        const { result, row, charged } = await booked(fixture, () => streamSdk(client, modelOf[up]));
        const { text, error } = result!;
        expect(text).toBe(words.join(''));
        expect(error, 'the SDK raised').toBeDefined();
        expect(String(error?.message)).toContain('Upstream overloaded');
        const input = up === 'anthropic' ? 40 : promptTokensExact();
        expect({ input: row.input_tokens, output: row.output_tokens, charged }).toEqual({ input, output: tokens(words.join('')), charged: expectedCharge({ input, output: tokens(words.join('')) }) });
        // docs/behaviour.md: "An error event of any upstream is recorded in the log row's error".
        expect(row.error).toContain('Upstream overloaded');
      });
    }
  }
});
