/**
 * The local count bills the thinking text the upstream was sent, not that of the reasoning the gateway left
 * out. A passthrough cleaning drops another vendor's reasoning whole: an Anthropic client's thinking block
 * signed by another vendor (a Gemini channel answered that turn: `signature:google:…`), or a Responses
 * client's reasoning item OpenAI did not encrypt, is left out of the body an Anthropic (Responses) channel
 * gets. A conversion does the same: thinking Anthropic cannot verify (another vendor's, or unsigned: a
 * Chat client's `reasoning_content`, a Gemini thought), the text beside redacted thinking, reasoning a Chat
 * channel is not sent back or a Responses channel cannot replay without OpenAI's encryption. Since 3173745
 * the dropped signature was no longer billed when the upstream then reports no usage, but the text still
 * was: thousands of tokens of thinking no upstream read. Each case sends one history twice through its
 * client's SDK, the thinking a short sentence and then some 6,000 tokens long, to an upstream answering
 * without usage: dropped, the two cost the same; sent (Anthropic's own signature to Anthropic, any thought
 * to Gemini), the long one costs its extra tokens of input. On every database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireStyle } from '../fakes/scripted-vendor-wire.js';
import { replyAsAsked } from '../fakes/scripted-vendor-wire.js';
import { allDialects } from '../support/test-databases.js';
import { expectedCharge, modelOf, startBillingFixture, tokens, type BillingFixture } from './billing-fixture.js';

const shortThinking = 'I should look it up.';
const longThinking = Array.from({ length: 600 }, (_, index) => `Step ${index}: the forecast for Paris needs the weather tool.`).join(' ');
const weather = { type: 'object' as const, properties: { city: { type: 'string' } } };
const anthropicSignature = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h';

type Send = (fixture: BillingFixture, model: string, thinking: string) => Promise<unknown>;

/**
 * Every client streams (an Anthropic upstream's whole message always reports usage; its stream's
 * message_start reports no input and its message_delta no usage): the SDK's raw events, read to the end
 * (Anthropic's accumulating helper requires the delta's usage).
 */
async function readToEnd(stream: AsyncIterable<unknown>): Promise<number> {
  let events = 0;
  for await (const _event of stream) events += 1;
  return events;
}

/** An Anthropic tool loop replaying one thinking block signed `signature`. */
const anthropicClient = (signature: string): Send => async (fixture, model, thinking) =>
  readToEnd(await fixture.sdk.anthropic.messages.create({
    model, max_tokens: 16, stream: true,
    tools: [{ name: 'weather', input_schema: weather }],
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: [{ type: 'thinking', thinking, signature }, { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny, 21 °C' }] },
    ],
  }));

/** A Responses tool loop replaying one reasoning item, its summary the thinking, its `encrypted_content` `encrypted`. */
const responsesClient = (encrypted: string): Send => async (fixture, model, thinking) =>
  readToEnd(await fixture.sdk.openai.responses.create({
    model, max_output_tokens: 16, store: false, stream: true,
    tools: [{ type: 'function', name: 'weather', parameters: weather, strict: false }],
    input: [
      { role: 'user', content: 'Weather in Paris?' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: thinking }], encrypted_content: encrypted },
      { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Sunny, 21 °C' },
    ],
  }));

/** A Gemini tool loop replaying one thought part, signed `signature` (a Google one as Gemini writes it, or a tagged one). */
const geminiClient = (signature: string): Send => async (fixture, model, thinking) =>
  readToEnd(await fixture.sdk.gemini.models.generateContentStream({
    model,
    config: { maxOutputTokens: 16, tools: [{ functionDeclarations: [{ name: 'weather', parametersJsonSchema: weather }] }] },
    contents: [
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      { role: 'model', parts: [{ text: thinking, thought: true, thoughtSignature: signature }, { functionCall: { id: 'fc_1', name: 'weather', args: { city: 'Paris' } } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'fc_1', name: 'weather', response: { output: 'Sunny, 21 °C' } } }] },
    ],
  }));

/** A Chat tool loop replaying its reasoning as `reasoning_content` (DeepSeek's field), which carries no signature. */
const chatClient: Send = async (fixture, model, thinking) =>
  readToEnd(await fixture.sdk.openai.chat.completions.create({
    model, max_tokens: 16, stream: true,
    tools: [{ type: 'function', function: { name: 'weather', parameters: weather } }],
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, reasoning_content: thinking, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] } as never,
      { role: 'tool', tool_call_id: 'call_1', content: 'Sunny, 21 °C' },
    ],
  }));

const cases: { what: string; up: WireStyle; send: Send; sent: boolean }[] = [
  { what: 'an Anthropic client’s thinking signed by Google, to an Anthropic channel (passthrough, dropped)', up: 'anthropic', send: anthropicClient('signature:google:CiQBAb4+'), sent: false },
  { what: 'an Anthropic client’s thinking without a signature, to an Anthropic channel (passthrough, dropped)', up: 'anthropic', send: anthropicClient(''), sent: false },
  { what: 'a Responses client’s reasoning signed by Anthropic, to a Responses channel (passthrough, dropped)', up: 'openai-responses', send: responsesClient('signature:anthropic:EqQBCgIYAh'), sent: false },
  { what: 'an Anthropic client’s thinking signed by Anthropic, to an Anthropic channel (passthrough, sent)', up: 'anthropic', send: anthropicClient(anthropicSignature), sent: true },
  { what: 'a Responses client’s reasoning signed by Google, to an Anthropic channel (converted, dropped)', up: 'anthropic', send: responsesClient('signature:google:CiQBAb4+'), sent: false },
  { what: 'a Responses client’s summary beside Anthropic redacted thinking, to an Anthropic channel (converted, text dropped)', up: 'anthropic', send: responsesClient('redacted:anthropic:EmwKAhgBEgy3va3pzix'), sent: false },
  { what: 'a Gemini client’s thought signed by Google, to an Anthropic channel (converted, dropped)', up: 'anthropic', send: geminiClient('CiQBAb4+'), sent: false },
  { what: 'a Chat client’s reasoning_content, to an Anthropic channel (converted, unsigned: dropped)', up: 'anthropic', send: chatClient, sent: false },
  { what: 'an Anthropic client’s thinking, to a Chat channel (converted: earlier reasoning not sent back)', up: 'openai-chat', send: anthropicClient(anthropicSignature), sent: false },
  { what: 'an Anthropic client’s thinking, to a Responses channel (converted: not OpenAI-encrypted, dropped)', up: 'openai-responses', send: anthropicClient(anthropicSignature), sent: false },
  { what: 'a Gemini client’s thought signed by Anthropic, to an Anthropic channel (converted, sent)', up: 'anthropic', send: geminiClient(`signature:anthropic:${anthropicSignature}`), sent: true },
  { what: 'an Anthropic client’s thinking, to a Gemini channel (converted, sent as a thought)', up: 'gemini', send: anthropicClient(anthropicSignature), sent: true },
];

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`a local count bills the thinking text sent upstream, on ${dialect}`, () => {
    let fixture: BillingFixture;
    beforeAll(async () => {
      fixture = await startBillingFixture({ dialect, userQuota: 100_000_000 });
    });
    afterAll(async () => {
      await fixture.close();
    });

    for (const { what, up, send, sent } of cases) {
      it(`${what}: ${sent ? 'billed' : 'not billed'}`, async () => {
        const upstream = fixture.primary[up];
        const charge = async (thinking: string) => {
          upstream.enqueue(replyAsAsked(up, { text: 'Sunny.', stop: 'stop' }));
          const spent = await fixture.spent(() => send(fixture, modelOf[up], thinking));
          const row = (await fixture.logs()).at(-1);
          expect(row.usage_source).toBe('local');
          return spent;
        };
        const short = await charge(shortThinking);
        const long = await charge(longThinking);
        const body = JSON.stringify(upstream.requests.at(-1)!.body);
        expect(body.includes(longThinking.slice(0, 200)), 'the upstream got the long thinking').toBe(sent);
        const extraInput = expectedCharge({ input: tokens(longThinking) - tokens(shortThinking), output: 0 });
        expect(extraInput, 'the long thinking is thousands of tokens more').toBeGreaterThan(expectedCharge({ input: 5_000, output: 0 }));
        if (sent) expect(Math.abs(long - short - extraInput)).toBeLessThanOrEqual(1);
        else expect(long).toBe(short);
      });
    }
  });
}
