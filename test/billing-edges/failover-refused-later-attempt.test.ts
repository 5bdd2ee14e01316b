import { afterEach, describe, expect, it } from 'vitest';
import { streamErrorEvent } from '../fakes/scripted-vendor-wire.js';
import { channel, startFixture, userKey, type Fixture } from '../routing/routing-fixture.js';
import { tokens } from './billing-fixture.js';

/**
 * An attempt that produced output and then failed in-band is billed what it produced when no later
 * attempt produces anything — also when the later attempt throws instead of failing: here the Anthropic
 * conversion refuses the request (a BMP image, which Anthropic does not take) after the Gemini channel
 * failed mid-answer. Needs two channel types serving one model, so it uses the routing fixture.
 */
let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('an attempt that failed in-band, then a channel whose conversion refuses the request', () => {
  it('openai-chat client, not streaming: billed the half answer of the first attempt, not the prompt alone', async () => {
    fx = await startFixture({ upstreams: 2, channels: ([a, b]) => [channel('a', a!, { type: 'gemini', priority: 10 }), channel('b', b!, { type: 'anthropic' })] });
    const halfText = 'A long half answer that never reached anyone, with quite a few words in it';
    const half = { data: { candidates: [{ content: { role: 'model', parts: [{ text: halfText }] }, index: 0 }], modelVersion: 'gemini-2.5-flash' } };
    fx.ups[0]!.enqueue({ sse: [half, streamErrorEvent('gemini', 'The model is overloaded.')], crlf: true });
    const bmp = `data:image/bmp;base64,${Buffer.from('BM not really a bitmap').toString('base64')}`;
    const response = await fx.chat(userKey, { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: bmp } }] }] });
    expect(response.status).toBe(400);
    await fx.gateway.settled();
    expect(fx.ups[0]!.requests).toHaveLength(1);
    expect(fx.ups[1]!.requests).toHaveLength(0);
    const row = await fx.gateway.gateway.services.database.db.selectFrom('logs').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect({ source: row.usage_source, output: Number(row.output_tokens) }).toEqual({ source: 'local', output: tokens(halfText) });
    // The channel whose half answer is billed counts the charge; the one that refused counts nothing.
    const channels = await fx.gateway.gateway.services.database.db.selectFrom('channels').select(['name', 'used_quota', 'request_count']).orderBy('name').execute();
    expect(channels.map((channel) => ({ name: channel.name, used: Number(channel.used_quota), requests: Number(channel.request_count) }))).toEqual([
      { name: 'a', used: Number(row.quota), requests: 1 },
      { name: 'b', used: 0, requests: 0 },
    ]);
  });
});
