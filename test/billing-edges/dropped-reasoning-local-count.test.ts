/**
 * The local count bills the opaque reasoning the upstream was sent, not what the gateway left out. A
 * history replayed to another vendor loses the signatures and encrypted reasoning that vendor did not issue
 * (converted, or cleaned on a same-style passthrough), and a Chat channel takes none at all; when the
 * upstream then reports no usage, the prompt is counted locally, and that count held the dropped reasoning
 * (30,000 tokens of it here): the caller paid for input no upstream read. Each case sends one history twice
 * through its client's SDK, its opaque value 8 characters long and then 120,000, to an upstream answering
 * without usage: where the value is dropped the two cost the same; where it is sent the long one costs its
 * 29,998 more tokens of input. On every database.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply, ScriptedRequest } from '../fakes/scripted-upstream.js';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { allDialects } from '../support/test-databases.js';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from './billing-fixture.js';

/** 120,000 base64 characters: 30,000 tokens at the documented 4 characters a token. */
const longValue = randomBytes(90_000).toString('base64');
/** 8 characters: 2 tokens. */
const shortValue = 'CiQBAb4+';
const weather = { type: 'object' as const, properties: { city: { type: 'string' } } };

type Send = (fixture: BillingFixture, model: string, opaque: string) => Promise<unknown>;

const geminiClient: (tag: string) => Send = (tag) => (fixture, model, opaque) =>
  fixture.sdk.gemini.models.generateContent({
    model,
    config: { maxOutputTokens: 16, tools: [{ functionDeclarations: [{ name: 'weather', parametersJsonSchema: weather }] }] },
    contents: [
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      { role: 'model', parts: [{ functionCall: { id: 'fc_1', name: 'weather', args: { city: 'Paris' } }, thoughtSignature: `${tag}${opaque}` }] },
      { role: 'user', parts: [{ functionResponse: { id: 'fc_1', name: 'weather', response: { output: 'Sunny, 21 °C' } } }] },
    ],
  });

const anthropicClient: Send = (fixture, model, opaque) =>
  fixture.sdk.anthropic.messages.create({
    model, max_tokens: 16,
    tools: [{ name: 'weather', input_schema: weather }],
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'I should look it up.', signature: opaque }, { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny, 21 °C' }] },
    ],
  });

const responsesClient: (tag: string) => Send = (tag) => (fixture, model, opaque) =>
  fixture.sdk.openai.responses.create({
    model, max_output_tokens: 16, store: false,
    tools: [{ type: 'function', name: 'weather', parameters: weather, strict: false }],
    input: [
      { role: 'user', content: 'Weather in Paris?' },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: `${tag}${opaque}` },
      { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Sunny, 21 °C' },
    ],
  });

const chatClient: (tag: string) => Send = (tag) => (fixture, model, opaque) =>
  fixture.sdk.openai.chat.completions.create({
    model, max_tokens: 16,
    tools: [{ type: 'function', function: { name: 'weather', parameters: weather } }],
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' }, extra_content: { google: { thought_signature: `${tag}${opaque}` } } } as never] },
      { role: 'tool', tool_call_id: 'call_1', content: 'Sunny, 21 °C' },
    ],
  });

const cases: { what: string; up: WireStyle; send: Send; sent: boolean }[] = [
  { what: 'a Gemini client’s thought signature, to a Chat channel (converted: Chat has no field for it)', up: 'openai-chat', send: geminiClient(''), sent: false },
  { what: 'an Anthropic client’s thinking signature, to a Chat channel (converted)', up: 'openai-chat', send: anthropicClient, sent: false },
  { what: 'a Responses client’s encrypted reasoning, to a Gemini channel (converted: Gemini cannot verify it)', up: 'gemini', send: responsesClient(''), sent: false },
  { what: 'a Chat client’s Google thought signature, to a Responses channel (converted: OpenAI cannot verify it)', up: 'openai-responses', send: chatClient(''), sent: false },
  { what: 'a Gemini client’s Claude signature, to a Gemini channel (passthrough, cleaned)', up: 'gemini', send: geminiClient('signature:anthropic:'), sent: false },
  { what: 'a Responses client’s Claude signature, to a Responses channel (passthrough, cleaned)', up: 'openai-responses', send: responsesClient('signature:anthropic:'), sent: false },
  { what: 'a Chat client’s Claude signature, to a Chat channel (passthrough, cleaned)', up: 'openai-chat', send: chatClient('signature:anthropic:'), sent: false },
  { what: 'a Gemini client’s OpenAI encrypted reasoning, to a Responses channel (converted, sent)', up: 'openai-responses', send: geminiClient('redacted:openai:gAAAAA'), sent: true },
  { what: 'a Chat client’s Google thought signature, to a Gemini channel (converted, sent)', up: 'gemini', send: chatClient(''), sent: true },
];

/** An answer without usage, in the upstream's wire (Gemini always streamed upstream). */
function answerWithoutUsage(up: WireStyle): (request: ScriptedRequest) => ScriptedReply {
  return (request) => replyFor(up, { text: 'Sunny.', stop: 'stop' }, up === 'gemini' || (request.body as { stream?: boolean } | undefined)?.stream === true);
}

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`a local count bills the opaque reasoning sent upstream, on ${dialect}`, () => {
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
        const charge = async (opaque: string) => {
          upstream.enqueue(answerWithoutUsage(up));
          const spent = await fixture.spent(() => send(fixture, modelOf[up], opaque));
          const row = (await fixture.logs()).at(-1);
          expect(row.usage_source).toBe('local');
          return spent;
        };
        const short = await charge(shortValue);
        const long = await charge(longValue);
        const body = JSON.stringify(upstream.requests.at(-1)!.body);
        expect(body.includes(longValue.slice(0, 64)), 'the upstream got the long value').toBe(sent);
        const extraInput = expectedCharge({ input: 30_000 - 2, output: 0 });
        if (sent) expect(Math.abs(long - short - extraInput)).toBeLessThanOrEqual(1);
        else expect(long).toBe(short);
      });
    }
  });
}
