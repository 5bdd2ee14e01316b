import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callerKey, expectedCharge, modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';

/**
 * docs/behaviour.md "Streaming": "An upstream that sends its response headers and then nothing is abandoned
 * after STREAMING_TIMEOUT; before any byte reached the client that is a timeout: 504, and the next channel
 * is tried." Keep-alive pings (STREAM_KEEPALIVE_SECONDS < STREAMING_TIMEOUT, as the defaults 20 < 300
 * always are) wait for the upstream to speak: a ping before it committed the client's 200 during that
 * silence, so the next channel was never tried and the prompt was charged for nothing (found by the review
 * of session 24's changes).
 */
let fixture: BillingFixture;
beforeEach(async () => {
  fixture = await startBillingFixture({ fallbacks: true, env: { STREAM_KEEPALIVE_SECONDS: '1', STREAMING_TIMEOUT: '3' } });
});
afterEach(async () => fixture?.close());

const cases = [
  {
    name: 'chat client → chat upstream (pipe)',
    style: 'openai-chat' as const,
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${callerKey}` } as Record<string, string>,
    body: { model: modelOf['openai-chat'], stream: true, messages: [{ role: 'user', content: 'Say hello' }] },
  },
  {
    name: 'anthropic client → anthropic upstream (pass-through)',
    style: 'anthropic' as const,
    path: '/v1/messages',
    headers: { 'x-api-key': callerKey, 'anthropic-version': '2023-06-01' } as Record<string, string>,
    body: { model: modelOf.anthropic, stream: true, max_tokens: 50, messages: [{ role: 'user', content: 'Say hello' }] },
  },
];

describe('keep-alive vs. a silent upstream that should fail over', () => {
  for (const c of cases) {
    it(`headers then silence past STREAMING_TIMEOUT: the next channel answers, as behaviour.md says (${c.name})`, async () => {
      // Headers flushed (an empty write), then nothing until the gateway gives up.
      fixture.primary[c.style].enqueue({ raw: [''], ending: 'hang' });
      const response = await fetch(`${fixture.gateway.url}${c.path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...c.headers }, body: JSON.stringify(c.body) });
      const text = await response.text();
      expect(fixture.primary[c.style].requests.length).toBe(1);
      // Should: the fallback channel is tried and its "Hello" reaches the client, charged at its usage.
      expect(fixture.fallback![c.style].requests.length, text).toBe(1);
      expect(text).toContain('Hello');
      expect(text).not.toContain('stream_interrupted');
      await fixture.settled();
      const row = (await fixture.logs()).at(-1);
      expect(row.quota).toBe(expectedCharge({ input: 10, output: 1 }));
    }, 20_000);
  }
});
