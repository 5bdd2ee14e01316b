/**
 * From the Anthropic audit (money): the reservation of an Anthropic request passed through to an Anthropic
 * channel covers the blocks the canonical parser drops (a `document` with a `content` source, a user
 * `search_result`, `search_result` blocks in a `tool_result`). They reach an Anthropic upstream byte for
 * byte and Anthropic bills their text; left out of the estimate, a key that could pay for a one-line prompt
 * was admitted with a 60,000-token one and its charge capped at its balance. Now → 402, no upstream call.
 * The walker itself is unit-tested in src/relay/text/collect-dropped-anthropic-prompt-text.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callerKey, modelOf, startBillingFixture, type BillingFixture } from './billing-fixture.js';
import { anthropicStream } from '../fakes/scripted-vendor-wire.js';

let fixture: BillingFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

// ~60 000 tokens of plain text (" alpha" is one o200k token).
const bigText = 'alpha '.repeat(60_000);

const cases: { name: string; messages: unknown[] }[] = [
  {
    name: 'a document with a `content` source (custom content document)',
    messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'content', content: [{ type: 'text', text: bigText }] } }, { type: 'text', text: 'Summarize' }] }],
  },
  {
    name: 'a search_result block in a user turn',
    messages: [{ role: 'user', content: [{ type: 'search_result', source: 'https://example.com/a', title: 'A', content: [{ type: 'text', text: bigText }] }, { type: 'text', text: 'Summarize' }] }],
  },
  {
    name: 'search_result blocks returned in a tool_result',
    messages: [
      { role: 'user', content: 'Look it up' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'x' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'search_result', source: 'https://example.com/a', title: 'A', content: [{ type: 'text', text: bigText }] }] }] },
    ],
  },
];

describe('the estimate of an Anthropic passthrough prompt counts blocks a conversion would drop', () => {
  it.each(cases)('$name: a key that cannot pay for the 60k-token prompt gets 402, not the upstream call', async ({ messages }) => {
    // 20 000 quota units ≈ 13 000 input tokens at $3/M (quota_per_unit 500 000): enough for "Summarize", not for 60k tokens.
    fixture = await startBillingFixture({ tokenQuota: 20_000, userQuota: 100_000_000 });
    fixture.primary.anthropic.enqueue(anthropicStream({ text: 'ok', usage: { input: 60_010, output: 1 } }));
    const response = await fetch(`${fixture.gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': callerKey, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: modelOf.anthropic, stream: true, max_tokens: 16, messages }),
    });
    await response.text();
    await fixture.settled();
    const reservation = (await fixture.reservations()).at(-1);
    expect({ status: response.status, upstreamCalls: fixture.primary.anthropic.requests.length, reserved: reservation?.amount }).toMatchObject({ status: 402, upstreamCalls: 0 });
  });
});

describe('control', () => {
  it('the same text as a plain text block is refused with 402', async () => {
    fixture = await startBillingFixture({ tokenQuota: 20_000, userQuota: 100_000_000 });
    const response = await fetch(`${fixture.gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': callerKey, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: modelOf.anthropic, stream: true, max_tokens: 16, messages: [{ role: 'user', content: [{ type: 'text', text: bigText }, { type: 'text', text: 'Summarize' }] }] }),
    });
    await response.text();
    expect({ status: response.status, upstreamCalls: fixture.primary.anthropic.requests.length }).toEqual({ status: 402, upstreamCalls: 0 });
  });
});
