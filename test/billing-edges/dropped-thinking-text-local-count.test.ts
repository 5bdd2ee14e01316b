/**
 * The local count bills the thinking text the upstream was sent, not that of the reasoning the passthrough
 * cleaning dropped whole. An Anthropic client's thinking block signed by another vendor (a Gemini channel
 * answered that turn: `signature:google:…`), or a Responses client's reasoning item OpenAI did not encrypt,
 * is left out of the body an Anthropic (Responses) channel gets; since 3173745 its signature was no longer
 * billed when the upstream then reports no usage, but its text still was: thousands of tokens of thinking
 * no upstream read. Each case sends one history twice through its client's SDK, the thinking a short
 * sentence and then some 6,000 tokens long, to a same-style upstream answering without usage: dropped, the
 * two cost the same; sent (Anthropic's own signature), the long one costs its extra tokens of input. On
 * every database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireStyle } from '../fakes/scripted-vendor-wire.js';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { allDialects } from '../support/test-databases.js';
import { expectedCharge, modelOf, startBillingFixture, tokens, type BillingFixture } from './billing-fixture.js';

const shortThinking = 'I should look it up.';
const longThinking = Array.from({ length: 600 }, (_, index) => `Step ${index}: the forecast for Paris needs the weather tool.`).join(' ');
const weather = { type: 'object' as const, properties: { city: { type: 'string' } } };

type Send = (fixture: BillingFixture, thinking: string) => Promise<unknown>;

/**
 * An Anthropic tool loop replaying one thinking block signed `signature`, streamed: the upstream's
 * message_start reports no input, its message_delta no usage (the SDK's raw events: its accumulating
 * helper requires the delta's usage).
 */
const anthropicClient = (signature: string): Send => async (fixture, thinking) => {
  const stream = await fixture.sdk.anthropic.messages.create({
    model: modelOf.anthropic, max_tokens: 16, stream: true,
    tools: [{ name: 'weather', input_schema: weather }],
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: [{ type: 'thinking', thinking, signature }, { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny, 21 °C' }] },
    ],
  });
  const events: string[] = [];
  for await (const event of stream) events.push(event.type);
  return events;
};

/** A Responses tool loop replaying one reasoning item, its summary the thinking, its `encrypted_content` `encrypted`. */
const responsesClient = (encrypted: string): Send => (fixture, thinking) =>
  fixture.sdk.openai.responses.create({
    model: modelOf['openai-responses'], max_output_tokens: 16, store: false,
    tools: [{ type: 'function', name: 'weather', parameters: weather, strict: false }],
    input: [
      { role: 'user', content: 'Weather in Paris?' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: thinking }], encrypted_content: encrypted },
      { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Sunny, 21 °C' },
    ],
  });

const cases: { what: string; up: WireStyle; send: Send; sent: boolean }[] = [
  { what: 'an Anthropic client’s thinking signed by Google, to an Anthropic channel (passthrough, dropped)', up: 'anthropic', send: anthropicClient('signature:google:CiQBAb4+'), sent: false },
  { what: 'an Anthropic client’s thinking without a signature, to an Anthropic channel (passthrough, dropped)', up: 'anthropic', send: anthropicClient(''), sent: false },
  { what: 'a Responses client’s reasoning signed by Anthropic, to a Responses channel (passthrough, dropped)', up: 'openai-responses', send: responsesClient('signature:anthropic:EqQBCgIYAh'), sent: false },
  { what: 'an Anthropic client’s thinking signed by Anthropic, to an Anthropic channel (passthrough, sent)', up: 'anthropic', send: anthropicClient('EqQBCgIYAhIM1gbcDa9GJwZA2b3h'), sent: true },
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
          upstream.enqueue((request) => replyFor(up, { text: 'Sunny.', stop: 'stop' }, (request.body as { stream?: boolean } | undefined)?.stream === true));
          const spent = await fixture.spent(() => send(fixture, thinking));
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
