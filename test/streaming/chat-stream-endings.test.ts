import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { expectedCharge, promptTokensExact, tokens } from '../billing-edges/billing-fixture.js';
import { callerKey, startByteUpstream, startStreamGateway, type ByteUpstream, type StreamGateway } from './stream-fixture.js';

/**
 * A same-style Chat Completions stream (relayed as the upstream framed it) is complete when it carries
 * `[DONE]` or the usage report the gateway asks for. One that ends cleanly with neither broke off: the
 * OpenAI SDK must raise instead of handing back a truncated answer that looks whole, the row records the
 * interruption, and the charge is the prompt + the delivered text counted locally. A 200 with no event at
 * all fails over like a reset.
 */
let gw: StreamGateway | undefined;
let upstreams: ByteUpstream[] = [];
afterEach(async () => {
  await gw?.close();
  for (const upstream of upstreams) await upstream.close();
  gw = undefined;
  upstreams = [];
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usageChunk = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm1', choices: [], usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } })}\n\n`;
const opening = chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Hello' }) + chunk({ content: ' there' });

async function upstreamSending(...bodies: string[]): Promise<ByteUpstream> {
  let call = 0;
  const upstream = await startByteUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(bodies[Math.min(call++, bodies.length - 1)]);
  });
  upstreams.push(upstream);
  return upstream;
}

async function streamText(url: string): Promise<string> {
  const client = new OpenAI({ apiKey: callerKey, baseURL: `${url}/v1`, maxRetries: 0 });
  let text = '';
  for await (const part of await client.chat.completions.create({ model: 'm1', stream: true, messages: [{ role: 'user', content: 'Say hello' }] })) {
    text += part.choices[0]?.delta.content ?? '';
  }
  return text;
}

describe('a same-style Chat stream', () => {
  it('that ends cleanly after some text, with neither [DONE] nor usage, makes the SDK raise and is billed prompt + delivered text', async () => {
    const upstream = await upstreamSending(opening);
    gw = await startStreamGateway([{ model: 'm1', style: 'openai-chat', url: upstream.url }]);
    await expect(streamText(gw.gateway.url)).rejects.toThrow(/interrupted/);
    const row = (await gw.logs()).at(-1)!;
    const charge = expectedCharge({ input: promptTokensExact(), output: tokens('Hello there') });
    expect({ status: row.status, source: row.usage_source, quota: Number(row.quota), error: row.error }).toEqual({
      status: 200, source: 'local', quota: charge, error: expect.stringContaining('interrupted'),
    });
    expect((await gw.reservations()).map((r) => r.state)).toEqual(['settled']);
  });

  it('that ends with its finish and usage but no [DONE] is whole, billed at the usage', async () => {
    const upstream = await upstreamSending(opening + chunk({}, 'stop') + usageChunk);
    gw = await startStreamGateway([{ model: 'm1', style: 'openai-chat', url: upstream.url }]);
    expect(await streamText(gw.gateway.url)).toBe('Hello there');
    const row = (await gw.logs()).at(-1)!;
    expect({ source: row.usage_source, quota: Number(row.quota), error: row.error }).toEqual({ source: 'upstream', quota: expectedCharge({ input: 10, output: 3 }), error: null });
  });

  it('that ends with [DONE] but no usage (a channel with stream_usage off) is whole, billed locally', async () => {
    const upstream = await upstreamSending(opening + chunk({}, 'stop') + 'data: [DONE]\n\n');
    gw = await startStreamGateway([{ model: 'm1', style: 'openai-chat', url: upstream.url }]);
    expect(await streamText(gw.gateway.url)).toBe('Hello there');
    const row = (await gw.logs()).at(-1)!;
    expect({ source: row.usage_source, error: row.error }).toEqual({ source: 'local', error: null });
  });

  it('that is a 200 with no event at all fails over to the next channel', async () => {
    const upstream = await upstreamSending('', opening + chunk({}, 'stop') + usageChunk + 'data: [DONE]\n\n');
    gw = await startStreamGateway([
      { model: 'm1', style: 'openai-chat', url: upstream.url },
      { model: 'm1', style: 'openai-chat', url: upstream.url },
    ]);
    expect(await streamText(gw.gateway.url)).toBe('Hello there');
    const row = (await gw.logs()).at(-1)!;
    expect(JSON.parse(row.attempts).map((attempt: { status: number | null }) => attempt.status)).toEqual([null, 200]);
    expect({ source: row.usage_source, quota: Number(row.quota) }).toEqual({ source: 'upstream', quota: expectedCharge({ input: 10, output: 3 }) });
  });

  it('that is a 200 with no event at all, on the only channel, is a 502 the SDK raises, and costs nothing', async () => {
    const upstream = await upstreamSending('');
    gw = await startStreamGateway([{ model: 'm1', style: 'openai-chat', url: upstream.url }]);
    const before = await gw.balances();
    await expect(streamText(gw.gateway.url)).rejects.toMatchObject({ status: 502 });
    expect((await gw.balances()).tokenUsed).toBe(before.tokenUsed);
    expect((await gw.reservations()).map((r) => ({ state: r.state, charged: r.settled_amount ?? 0 }))).toEqual([{ state: expect.not.stringMatching(/^reserved$/), charged: 0 }]);
  });
});
