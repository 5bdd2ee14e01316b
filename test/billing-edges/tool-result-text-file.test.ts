import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, tokens, type BillingFixture } from './billing-fixture.js';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { booked } from '../support/booked-request.js';

/**
 * From the Responses usage-wait audit: a text/* file a tool returned reaches a Chat upstream as its text,
 * and every vendor bills such a file as text; the prompt estimate (the reservation) and the local count (an
 * upstream without usage) counted it a flat 1,000 tokens whatever its size, so a 40,000-token file reserved
 * 1,000. Both now count its text.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const big = 'The quick brown fox jumps over the lazy dog. '.repeat(4_000); // ~180 KB, ~40k tokens

async function responsesRow(output: unknown) {
  fixture.primary['openai-chat'].enqueue(replyFor('openai-chat', { text: 'ok' }, false));
  const tools = [{ type: 'function' as const, name: 'read', parameters: { type: 'object', properties: {} }, strict: false }];
  const input = [
    { role: 'user', content: 'Read' },
    { type: 'function_call', call_id: 'call_T', name: 'read', arguments: '{}' },
    { type: 'function_call_output', call_id: 'call_T', output },
  ];
  const { row } = await booked(fixture, () => fixture.sdk.openai.responses.create({ model: modelOf['openai-chat'], max_output_tokens: 16, tools, input: input as any }));
  const reservation = (await fixture.reservations()).find((r) => r.id === row.request_id)!;
  return { input: Number(row.input_tokens), reserved: reservation.amount, source: row.usage_source };
}

describe('a large text file in a tool result, to a Chat upstream that reports no usage', () => {
  it('is reserved and billed as the text it is sent as', async () => {
    const asString = await responsesRow(big);
    const asFile = await responsesRow([{ type: 'input_file', filename: 'notes.txt', file_data: `data:text/plain;base64,${Buffer.from(big).toString('base64')}` }]);
    expect(fixture.primary['openai-chat'].requests.at(-1)!.rawBody.length).toBeGreaterThan(big.length);
    expect(asString.source).toBe('local');
    expect(asString.input).toBeGreaterThan(tokens(big) - 100);
    expect({ source: asFile.source, billedAtLeastText: asFile.input >= tokens(big) - 100, reservedAsString: asFile.reserved >= asString.reserved * 0.9 })
      .toEqual({ source: 'local', billedAtLeastText: true, reservedAsString: true });
  }, 60_000);
});
