import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../fakes/scripted-upstream.js';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { buildClientRequest, expectedCharge, modelOf, promptTokensExact, readSse, startBillingFixture, styles, tokens, type BillingFixture } from './billing-fixture.js';

/**
 * A client that leaves a NON-streamed request after the upstream answered 200 but before its body is
 * complete; an upstream that stalls mid-stream until STREAMING_TIMEOUT. Both read raw HTTP: the first
 * aborts at a precise point of the body, the second reads what arrived before the gateway ended it.
 * Rule (docs/behaviour.md "Billing"): "when an upstream answered (2xx), the prompt plus the produced text
 * counted locally … else nothing"; a client that leaves while a non-streamed body is still coming, and
 * the body does not come within USAGE_WAIT_SECONDS, is charged its prompt, as a stream left before its
 * first event is.
 */
let fixture: BillingFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

function headersThenHang(upstream: WireStyle): ScriptedReply {
  // Gemini is always called streaming: 200 + event-stream + half an event (so the headers leave), then nothing.
  if (upstream === 'gemini') return { raw: ['data: {"candidates":'], ending: 'hang' };
  // 200 + JSON content type + the first bytes of the body, then nothing.
  return { headers: { 'content-type': 'application/json' }, raw: ['{"id":"x",'], ending: 'hang' };
}

describe('a client that leaves a non-streamed request after the upstream answered 200 (body not complete) pays its prompt', () => {
  for (const client of styles) {
    for (const upstream of styles) {
      it(`${client} client → ${upstream} upstream: the prompt is billed (2xx answered), as for a stream left before its first event`, async () => {
        // The gateway reads on for the body's usage (usage-wait.test.ts) for USAGE_WAIT_SECONDS, then gives up.
        fixture = await startBillingFixture({ tokenQuota: 10_000_000, userQuota: 10_000_000, env: { USAGE_WAIT_SECONDS: '1' } });
        fixture.primary[upstream].enqueue(headersThenHang(upstream));
        const controller = new AbortController();
        const request = buildClientRequest(fixture.gateway.url, client, modelOf[upstream], false, 100, controller.signal);
        const sent = fetch(request.url, request.init).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 400));
        controller.abort();
        await sent;
        await new Promise((resolve) => setTimeout(resolve, 200));
        await fixture.settled();
        const [row] = await fixture.logs();
        expect((await fixture.reservations()).filter((r) => r.state !== 'settled')).toEqual([]);
        expect(row.status).toBe(499);
        expect({ source: row.usage_source, input: row.input_tokens, quota: row.quota }).toEqual({
          source: 'local', input: promptTokensExact(), quota: expectedCharge({ input: promptTokensExact(), output: 0 }),
        });
      });
    }
  }
});

describe('an upstream that stalls mid-stream until STREAMING_TIMEOUT: the prompt + the delivered text, reservation closed', () => {
  for (const upstream of styles) {
    it(`openai-chat client → ${upstream} upstream`, async () => {
      fixture = await startBillingFixture({ tokenQuota: 10_000_000, userQuota: 10_000_000, env: { STREAMING_TIMEOUT: '1' } });
      // Anthropic's message_start reports the input side and an interim output_tokens: 1, as Anthropic does.
      const options = upstream === 'anthropic' ? { terminal: false, startUsage: { input: 40, output: 1 } } : { terminal: false };
      fixture.primary[upstream].enqueue({ ...replyFor(upstream, { text: ['Hello', ' there'] }, true, options), ending: 'hang' });
      const request = buildClientRequest(fixture.gateway.url, 'openai-chat', modelOf[upstream], true, 100);
      const response = await fetch(request.url, request.init);
      const read = await readSse(response, 'openai-chat');
      expect(read.text).toBe('Hello there');
      // The gateway ends the stream with an error event the openai SDK raises.
      expect(read.events.filter((data) => data.includes('"error"')).map((data) => JSON.parse(data))).toMatchObject([{ error: { code: 'stream_interrupted' } }]);
      await fixture.settled();
      const [row] = await fixture.logs();
      expect((await fixture.reservations()).filter((r) => r.state !== 'settled')).toEqual([]);
      const delivered = tokens('Hello there');
      // Anthropic's message_start input (40) is billed; the others' prompt is counted locally.
      const input = upstream === 'anthropic' ? 40 : promptTokensExact();
      expect({ source: row.usage_source, input: row.input_tokens, output: row.output_tokens, quota: row.quota }).toEqual({
        source: 'local', input, output: delivered, quota: expectedCharge({ input, output: delivered }),
      });
    }, 15_000);
  }
});
