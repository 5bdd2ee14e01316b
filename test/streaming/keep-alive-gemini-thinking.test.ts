/**
 * A converted stream whose opening was released by the answer's first content but whose encoder wrote
 * nothing for it yet (a Gemini client, alt=sse, no includeThoughts, of a thinking model on another vendor:
 * its reasoning encodes to '') must still be pinged while the model thinks — the case the keep-alive is for
 * (docs/behaviour.md "Keep-alive"). The upstream has spoken, so a ping stops no failover that is still
 * possible. Found by the review of session 24's last commits: it got no ping at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SseEvent } from '../fakes/scripted-upstream.js';
import { anthropicStream } from '../fakes/scripted-vendor-wire.js';
import { callerKey, M, startCrossStyleFixture, type CrossStyleFixture } from '../cross-style/harness.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture({ STREAM_KEEPALIVE_SECONDS: '1' });
});
afterAll(async () => fixture?.close());

function withSilenceAfter(events: SseEvent[], opening: number) {
  const frame = (part: SseEvent[]) => part.map((event) => `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}\n\n`).join('');
  return { raw: [frame(events.slice(0, opening)), frame(events.slice(opening))], delayMs: 2600 };
}

describe('keep-alive for a Gemini client whose thinking is not shown', () => {
  it('Anthropic upstream thinking (message_start, thinking block, ping, a thinking delta, then 2.6 s of silence): the Gemini SSE client gets a ping', async () => {
    const events = anthropicStream({ thinking: { text: 'Let me think about this for a while.', signature: 'sig' }, text: 'Done.', usage: { input: 5, output: 20 } }).sse!;
    expect((events[3]!.data as any).delta?.type).toBe("thinking_delta");
    fixture.upstream.enqueue(withSilenceAfter(events, 4));
    const response = await fetch(`${fixture.gateway.url}/v1beta/models/${M.anthropic}:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': callerKey, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'think' }] }] }),
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain('"text":"Done"');
    expect(text.indexOf(': keep-alive'), 'a ping during the 2.6 s the model thought').toBeGreaterThanOrEqual(0);
    expect(text.indexOf(': keep-alive')).toBeLessThan(text.indexOf('"text":"Done"'));
  }, 20_000);
});
