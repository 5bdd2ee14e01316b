/**
 * Replayed opaque reasoning is reserved. A tool loop with thinking on hands the model's earlier reasoning back
 * on every turn — Anthropic `thinking` blocks with their `signature` and `redacted_thinking.data`, Responses
 * reasoning items' `encrypted_content` (and a `compaction` item's), Gemini `thoughtSignature` — and the
 * vendors bill it as input (Anthropic counts the tool loop's earlier thinking, OpenAI its encrypted reasoning
 * items). The prompt estimate counted none of it (and none of a Chat turn's `reasoning_content`, which
 * DeepSeek's thinking mode requires back), so a key whose balance covered the visible turn but not the
 * replayed reasoning was admitted, served, and charged only as far as its balance went: the operator paid
 * the rest (docs/behaviour.md "Billing": a charge above the reservation is taken only as far as the balances
 * cover it). Now such a key is refused 402 before any upstream call, its balance untouched, on every
 * database. Each client style on its own style's channel (the body passed through as sent), through its SDK.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { allDialects } from '../support/test-databases.js';
import { expectedCharge, modelOf, startBillingFixture, type BillingFixture } from './billing-fixture.js';

let fixture: BillingFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** 120,000 base64 characters: 90 KB of ciphertext, 30,000 tokens at the documented 4 characters a token. */
const opaque = randomBytes(90_000).toString('base64');
/** About 40,000 tokens of reasoning text (o200k), as a DeepSeek client replays it in `reasoning_content`. */
const reasoningText = 'The user wants the weather, so I should call the tool with the city they named and then read its result carefully. '.repeat(1_700);
/** The input the upstream bills the replayed reasoning at. */
const billedInput = 40_000;
/** Covers the visible turn many times over, and the replayed reasoning not at all. */
const balance = expectedCharge({ input: 20_000, output: 16 });

type Replayed = 'none' | 'signature' | 'redacted' | 'encrypted' | 'compaction' | 'reasoning_content';

const weatherTool = { type: 'object' as const, properties: { city: { type: 'string' } } };

/** A tool turn — the call, its result — with the earlier reasoning replayed as `replayed` says, through the style's SDK. */
function sendToolTurn(current: BillingFixture, style: WireStyle, replayed: Replayed): Promise<unknown> {
  const model = modelOf[style];
  switch (style) {
    case 'anthropic': {
      const reasoning =
        replayed === 'signature' ? [{ type: 'thinking' as const, thinking: 'I should look it up.', signature: opaque }]
        : replayed === 'redacted' ? [{ type: 'redacted_thinking' as const, data: opaque }]
        : [];
      return current.sdk.anthropic.messages.create({
        model, max_tokens: 16,
        tools: [{ name: 'weather', input_schema: weatherTool }],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: [...reasoning, { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny, 21 °C' }] },
        ],
      });
    }
    case 'openai-responses': {
      const earlier =
        replayed === 'encrypted' ? [{ type: 'reasoning' as const, id: 'rs_1', summary: [], encrypted_content: opaque }]
        : replayed === 'compaction' ? [{ type: 'compaction', id: 'cmp_1', encrypted_content: opaque } as never]
        : [];
      return current.sdk.openai.responses.create({
        model, max_output_tokens: 16, store: false,
        tools: [{ type: 'function', name: 'weather', parameters: weatherTool, strict: false }],
        input: [
          ...(replayed === 'compaction' ? earlier : []),
          { role: 'user', content: 'Weather in Paris?' },
          ...(replayed === 'encrypted' ? earlier : []),
          { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'Sunny, 21 °C' },
        ],
      });
    }
    case 'gemini':
      return current.sdk.gemini.models.generateContent({
        model,
        config: { maxOutputTokens: 16, tools: [{ functionDeclarations: [{ name: 'weather', parametersJsonSchema: weatherTool }] }] },
        contents: [
          { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
          { role: 'model', parts: [{ functionCall: { id: 'fc_1', name: 'weather', args: { city: 'Paris' } }, ...(replayed === 'signature' ? { thoughtSignature: opaque } : {}) }] },
          { role: 'user', parts: [{ functionResponse: { id: 'fc_1', name: 'weather', response: { output: 'Sunny, 21 °C' } } }] },
        ],
      });
    case 'openai-chat':
      return current.sdk.openai.chat.completions.create({
        model, max_tokens: 16,
        tools: [{ type: 'function', function: { name: 'weather', parameters: weatherTool } }],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant', content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
            ...(replayed === 'reasoning_content' ? { reasoning_content: reasoningText } : {}),
          } as never,
          { role: 'tool', tool_call_id: 'call_1', content: 'Sunny, 21 °C' },
        ],
      });
  }
}

const cases: { style: WireStyle; replayed: Replayed; what: string }[] = [
  { style: 'anthropic', replayed: 'signature', what: "a thinking block's signature" },
  { style: 'anthropic', replayed: 'redacted', what: "a redacted_thinking block's data" },
  { style: 'openai-responses', replayed: 'encrypted', what: "a reasoning item's encrypted_content" },
  { style: 'openai-responses', replayed: 'compaction', what: "a compaction item's encrypted_content" },
  { style: 'gemini', replayed: 'signature', what: "a function call's thoughtSignature" },
  { style: 'openai-chat', replayed: 'reasoning_content', what: "an assistant turn's reasoning_content" },
];

for (const { dialect, available } of allDialects) {
  describe.skipIf(!available)(`replayed reasoning is reserved, on ${dialect}`, () => {
    for (const { style, replayed, what } of cases) {
      it(`${style} client → ${style} channel: a key that pays for the tool turn is refused 402 once it replays ${what}, before any upstream call`, async () => {
        fixture = await startBillingFixture({ dialect, tokenQuota: balance, userQuota: 100_000_000 });
        const upstream = fixture.primary[style];
        upstream.enqueue(replyFor(style, { text: 'Sunny.', usage: { input: 60, output: 2 } }, style === 'gemini'));
        await sendToolTurn(fixture, style, 'none');
        expect(upstream.requests, 'the same turn without the replayed reasoning is served').toHaveLength(1);
        await fixture.settled();
        const before = await fixture.balances();

        // Were it admitted, the upstream would bill the replayed reasoning: more than the key holds.
        upstream.enqueue(replyFor(style, { text: 'Sunny.', usage: { input: billedInput, output: 2 } }, style === 'gemini'));
        expect(expectedCharge({ input: billedInput, output: 2 })).toBeGreaterThan(before.tokenRemain);
        const refused = await sendToolTurn(fixture, style, replayed).then(
          () => 'served',
          (error: { status?: number }) => error.status,
        );
        expect(refused).toBe(402);
        expect(upstream.requests, 'the upstream was not called for the refused request').toHaveLength(1);
        await fixture.settled();
        expect(await fixture.balances(), 'nothing was taken for the refused request').toEqual(before);
      });
    }
  });
}
