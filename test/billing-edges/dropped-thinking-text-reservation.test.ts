/**
 * The reservation does not hold the thinking text a conversion drops (from session 34's conversion red team).
 * Since e283318 the local count leaves out the replayed reasoning a request formatter drops — Claude's own
 * thinking toward a Chat channel (earlier reasoning is not sent back) or a Responses one (not OpenAI's
 * encryption), thinking another vendor signed, a Chat client's unsigned `reasoning_content` toward Anthropic —
 * but the reservation made before the upstream call still counted it, so a long Claude Code history refused a
 * key whose balance paid for everything the upstream would read: 402, though the upstream never reads that
 * text. Now the reservation leaves out what every channel that could serve the request drops. A key that pays
 * for the visible tool turn and not for 40,000 tokens of thinking is served where the thinking is dropped, and
 * still refused 402 where it is sent (a Gemini channel gets it as a thought part; an Anthropic channel Claude's
 * own signed thinking). Through each client's SDK, on every database.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { replyAsAsked, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { allDialects } from '../support/test-databases.js';
import { expectedCharge, modelOf, startBillingFixture, tokens, type BillingFixture } from './billing-fixture.js';

let fixture: BillingFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** About 40,000 tokens of thinking (o200k). */
const thinking = 'The user wants the weather, so I should call the tool with the city they named and then read its result carefully. '.repeat(1_700);
/** Covers the visible tool turn many times over, and the replayed thinking not at all. */
const balance = expectedCharge({ input: 20_000, output: 16 });
const weather = { type: 'object' as const, properties: { city: { type: 'string' } } };
const anthropicSignature = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h';

type Send = (current: BillingFixture, model: string) => Promise<unknown>;

/** Claude Code's tool loop: one thinking block signed `signature`, a call, its result. */
const anthropicClient = (signature: string): Send => (current, model) =>
  current.sdk.anthropic.messages.create({
    model, max_tokens: 16,
    tools: [{ name: 'weather', input_schema: weather }],
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: [{ type: 'thinking', thinking, signature }, { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny, 21 °C' }] },
    ],
  });

/** A DeepSeek-style Chat tool loop replaying its reasoning as `reasoning_content`, which carries no signature. */
const chatClient: Send = (current, model) =>
  current.sdk.openai.chat.completions.create({
    model, max_tokens: 16,
    tools: [{ type: 'function', function: { name: 'weather', parameters: weather } }],
    messages: [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, reasoning_content: thinking, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] } as never,
      { role: 'tool', tool_call_id: 'call_1', content: 'Sunny, 21 °C' },
    ],
  });

const cases: { what: string; up: WireStyle; send: Send; dropped: boolean }[] = [
  { what: 'an Anthropic client’s own thinking, to a Chat channel (earlier reasoning not sent back)', up: 'openai-chat', send: anthropicClient(anthropicSignature), dropped: true },
  { what: 'an Anthropic client’s own thinking, to a Responses channel (not OpenAI-encrypted)', up: 'openai-responses', send: anthropicClient(anthropicSignature), dropped: true },
  { what: 'a Chat client’s reasoning_content, to an Anthropic channel (unsigned)', up: 'anthropic', send: chatClient, dropped: true },
  { what: 'an Anthropic client’s own thinking, to a Gemini channel (sent as a thought)', up: 'gemini', send: anthropicClient(anthropicSignature), dropped: false },
  { what: 'an Anthropic client’s own thinking, to an Anthropic channel (passthrough, sent)', up: 'anthropic', send: anthropicClient(anthropicSignature), dropped: false },
];

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`the reservation leaves out the thinking a conversion drops, on ${dialect}`, () => {
    for (const { what, up, send, dropped } of cases) {
      it(`${what}: ${dropped ? 'served' : 'refused 402'} on a key that pays for the tool turn only`, async () => {
        fixture = await startBillingFixture({ dialect, tokenQuota: balance, userQuota: 100_000_000 });
        expect(tokens(thinking), 'the thinking alone costs more than the key holds').toBeGreaterThan(20_000);
        const upstream = fixture.primary[up];
        upstream.enqueue(replyAsAsked(up, { text: 'Sunny.', stop: 'stop', usage: { input: 60, output: 2 } }));
        const outcome = await send(fixture, modelOf[up]).then(
          () => 'served',
          (error: { status?: number }) => error.status,
        );
        await fixture.settled();
        const after = await fixture.balances();
        if (dropped) {
          expect(outcome).toBe('served');
          expect(JSON.stringify(upstream.requests.at(-1)!.body).includes(thinking.slice(0, 200)), 'the upstream was not sent the thinking').toBe(false);
          expect(after.tokenUsed, 'charged what the upstream reported').toBe(expectedCharge({ input: 60, output: 2 }));
        } else {
          expect(outcome).toBe(402);
          expect(upstream.requests, 'the upstream was not called').toHaveLength(0);
          expect(after.tokenUsed).toBe(0);
        }
      });
    }
  });
}
