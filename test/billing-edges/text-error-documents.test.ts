/**
 * From the Anthropic audit (money): a 2xx answer that is an error document (`{"type":"error","error":…}`,
 * `{"error":…}`, as chained gateways answer a failure) delivered nothing. The Anthropic passthrough charged
 * its prompt (a local count) and relayed it to the SDK as if it were a message. Now, on every text route —
 * passthrough in each client style and converted alike — it is the channel's failure: the next channel is
 * tried, the client gets a 502 in its own envelope when none serves, and nothing is charged
 * (src/relay/is-error-document.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireStyle } from '../fakes/scripted-vendor-wire.js';
import { modelOf, sendWithSdk, startBillingFixture, styles, type BillingFixture } from './billing-fixture.js';
import { booked } from '../support/booked-request.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

/** Each vendor's error envelope, as a chained gateway sends it with a 200. */
const errorDocument: Record<WireStyle, unknown> = {
  'openai-chat': { error: { message: 'Upstream quota exhausted', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } },
  'openai-responses': { error: { message: 'Upstream quota exhausted', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } },
  anthropic: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
  gemini: { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } },
};

describe('a 2xx error document from a text channel', () => {
  it.each(styles)('%s client → its own style (passthrough): a 502, charged nothing', async (style) => {
    fixture.primary[style].clearQueue();
    for (let i = 0; i < 3; i++) fixture.primary[style].enqueue({ status: 200, json: errorDocument[style] });
    const { row, error } = await booked(fixture, () => sendWithSdk(fixture.sdk, style, modelOf[style], false, 50));
    fixture.primary[style].clearQueue();
    expect({ status: error?.status ?? error?.code, charged: row.quota, usageSource: row.usage_source }).toEqual({ status: 502, charged: 0, usageSource: 'none' });
  });

  it('Anthropic client, streamed, answered a JSON error document: a 502, charged nothing', async () => {
    fixture.primary.anthropic.clearQueue();
    for (let i = 0; i < 3; i++) fixture.primary.anthropic.enqueue({ status: 200, json: errorDocument.anthropic });
    const { row, error } = await booked(fixture, () => sendWithSdk(fixture.sdk, 'anthropic', modelOf.anthropic, true, 50));
    fixture.primary.anthropic.clearQueue();
    expect({ status: error?.status, charged: row.quota }).toEqual({ status: 502, charged: 0 });
  });

  it('control: Chat client → Anthropic channel (converted) is charged nothing too', async () => {
    fixture.primary.anthropic.clearQueue();
    for (let i = 0; i < 3; i++) fixture.primary.anthropic.enqueue({ status: 200, json: errorDocument.anthropic });
    const { row } = await booked(fixture, () => sendWithSdk(fixture.sdk, 'openai-chat', modelOf.anthropic, false, 50));
    fixture.primary.anthropic.clearQueue();
    expect(row.quota).toBe(0);
  });
});
