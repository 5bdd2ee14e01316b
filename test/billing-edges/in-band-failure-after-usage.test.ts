import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SseEvent } from '../fakes/scripted-upstream.js';
import { anthropicStream, responsesStream, type WireStyle, type WireUsage } from '../fakes/scripted-vendor-wire.js';
import { buildClientRequest, expectedCharge, modelOf, readSse, startBillingFixture, styles, type BillingFixture } from './billing-fixture.js';
import { settledRow } from '../support/booked-request.js';

/**
 * From the money red-team: an upstream that fails in-band AFTER it reported its usage — a Responses
 * `response.failed` whose response carries `usage` (OpenAI bills a failed response what it ran, hidden
 * reasoning included), an Anthropic `error` event after `message_delta` — is billed that report, not the
 * prompt + visible text counted locally (which would miss the reasoning and the cache split).
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const text = ['Hello', ' there'];

/** The text, then `response.failed` with the usage the upstream reports for what it ran. */
function responsesFailedWithUsage(usage: WireUsage): SseEvent[] {
  const opening = responsesStream({ text }, { terminal: false }).sse!;
  const wireUsage = {
    input_tokens: usage.input,
    input_tokens_details: { cached_tokens: usage.cacheRead ?? 0 },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
    total_tokens: usage.input + usage.output,
  };
  const response = { id: 'resp_up1', object: 'response', status: 'failed', error: { code: 'server_error', message: 'The server had an error' }, incomplete_details: null, output: [], usage: wireUsage, model: 'gpt-5-mini-2025-08-07' };
  return [...opening, { event: 'response.failed', data: { type: 'response.failed', sequence_number: opening.length, response } }];
}

/** The whole answer up to `message_delta` (its final usage), then Anthropic's overloaded `error` instead of `message_stop`. */
function anthropicErrorAfterUsage(usage: WireUsage): SseEvent[] {
  const whole = anthropicStream({ text, usage }).sse!;
  return [...whole.slice(0, -1), { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }];
}

const cases: { upstream: WireStyle; usage: WireUsage; events: (usage: WireUsage) => SseEvent[] }[] = [
  { upstream: 'openai-responses', usage: { input: 1000, cacheRead: 200, output: 900, reasoning: 800 }, events: responsesFailedWithUsage },
  { upstream: 'anthropic', usage: { input: 1000, cacheRead: 200, cacheWrite: 300, output: 900 }, events: anthropicErrorAfterUsage },
];

for (const { upstream, usage, events } of cases) {
  describe(`a ${upstream} upstream that fails in-band after its usage report`, () => {
    for (const client of styles) {
      it(`${client} client: billed the report, the failure in the row`, async () => {
        fixture.primary[upstream].enqueue({ headers: { 'content-type': 'text/event-stream' }, sse: events(usage) });
        const logsBefore = (await fixture.logs()).length;
        const request = buildClientRequest(fixture.gateway.url, client, modelOf[upstream], true, 2000);
        const response = await fetch(request.url, request.init);
        expect(response.status).toBe(200);
        expect((await readSse(response, client)).text).toBe(text.join(''));
        const row = await settledRow(fixture, logsBefore);
        expect({ source: row.usage_source, quota: row.quota, failed: typeof row.error === 'string' && row.error !== '' }).toEqual({
          source: 'upstream', quota: expectedCharge(usage), failed: true,
        });
      });
    }
  });
}
