import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientKey, startRelayFixture, type RelayFixture } from './relay-test-setup.js';

/**
 * The upstream call takes the relay's own client-abort signal (an EventEmitter undici accepts, not an
 * AbortController): a client that leaves while the upstream has not answered yet must end the wait at once.
 */
describe('a client that leaves before the upstream answers', () => {
  let fixture: RelayFixture;

  beforeEach(async () => {
    fixture = await startRelayFixture();
  });
  afterEach(async () => fixture?.close());

  async function rowWithin(ms: number) {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const [row] = await fixture.logs();
      if (row !== undefined) return row;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return undefined;
  }

  for (const stream of [false, true]) {
    it(`aborts the upstream call while it waits for the first byte (${stream ? 'streamed' : 'not streamed'}), logs 499 and charges nothing`, async () => {
      // The upstream would answer after 4 s; the client gives up after 200 ms.
      fixture.upstreamA.enqueueFault({ kind: 'slow-first-byte', delayMs: 4_000 });
      const controller = new AbortController();
      const sent = fetch(`${fixture.gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'hi' }] }),
        signal: controller.signal,
      }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 200));
      controller.abort();
      await sent;
      const abortedAt = Date.now();

      const row = await rowWithin(2_000);
      // Settled long before the upstream's 4 s: the call was aborted, not waited out.
      expect(Date.now() - abortedAt).toBeLessThan(2_000);
      expect(row).toMatchObject({ status: 499, error: 'client disconnected', quota: 0 });
      // No failover to channel B for a client that is gone.
      expect(fixture.upstreamB.requests).toHaveLength(0);
      expect((await fixture.token()).used_quota).toBe(0);
    });
  }
});
