import { afterEach, describe, expect, it } from 'vitest';
import { channel, startFixture, userKey, type Fixture } from './routing-fixture.js';

/**
 * A client that leaves before the upstream's first byte is no failure of the channel (from the failover
 * audit): the gateway aborts the upstream call itself (upstream-client.ts onAbort), which surfaces as a
 * connection failure. Three such clients in a row must not put a healthy channel in the 30 s cooldown
 * that three failures do, nor try another channel for a request nobody waits for.
 */
let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

async function impatientChat(f: Fixture, waitMs: number): Promise<void> {
  const controller = new AbortController();
  const request = fetch(`${f.url}/v1/chat/completions`, {
    method: 'POST',
    signal: controller.signal,
    headers: { authorization: `Bearer ${userKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50 }),
  }).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  controller.abort();
  await request;
}

describe('client disconnects before the first byte', () => {
  it('three impatient clients do not put a healthy channel in cooldown', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { priority: 10 }), channel('b', b!)] });
    // a takes its time (nothing until the client leaves) three times, then answers at once.
    fx.ups[0]!.enqueue({ ending: 'hang' }, { ending: 'hang' }, { ending: 'hang' });
    for (let i = 0; i < 3; i += 1) await impatientChat(fx, 200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fx.ups[0]!.requests).toHaveLength(3);
    // The client leaving ends the request: no other channel was tried for it.
    expect(fx.ups[1]!.requests).toHaveLength(0);
    const next = await fx.chat();
    expect(next.status).toBe(200);
    // a is healthy and the preferred channel: it serves.
    expect(next.headers.get('x-relay-channel-id')).toBe(String(fx.idOf('a')));
  });
});
