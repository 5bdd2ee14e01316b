import { APIError } from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countTextTokens } from '../../src/relay/count-tokens.js';
import { clientKey, startRelayFixture, type RelayFixture } from './relay-test-setup.js';

const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Say hello' }] };

describe('OpenAI-style relay under upstream faults', () => {
  let fixture: RelayFixture;
  let channelA: number;
  let channelB: number;

  beforeEach(async () => {
    fixture = await startRelayFixture({ env: { RELAY_FIRST_BYTE_TIMEOUT: '1', STREAMING_TIMEOUT: '1', MAX_UPSTREAM_RESPONSE_MB: '1' } });
    const channels = fixture.gateway.gateway.services.catalog.snapshot.channels;
    channelA = channels.find((channel) => channel.name === 'channel-a')!.id;
    channelB = channels.find((channel) => channel.name === 'channel-b')!.id;
  });
  afterEach(async () => {
    await fixture.close();
  });

  const attemptsOf = (row: { attempts: unknown[] }) => row.attempts.map((attempt) => [(attempt as { channel_id: number }).channel_id, (attempt as { status: number | null }).status]);

  it('moves to another channel on 500 and bills once', async () => {
    fixture.upstreamA.enqueueFault({ kind: 'status', status: 500, body: { error: { message: 'boom', type: 'server_error', param: null, code: null } } });
    const { data, response } = await fixture.client.chat.completions.create(chat).withResponse();
    expect(data.choices[0]?.message.content).toBe('Hello from the fake upstream!');
    expect(response.headers.get('x-relay-attempts')).toBe('2');
    expect(response.headers.get('x-relay-channel-id')).toBe(String(channelB));
    const [row] = await fixture.logs();
    expect(attemptsOf(row!)).toEqual([[channelA, 500], [channelB, 200]]);
    expect(row!.channel_id).toBe(channelB);
    expect(row!.quota).toBe(4);
    expect((await fixture.token()).used_quota).toBe(4);
  });

  it('moves to another channel on 429 with retry-after', async () => {
    fixture.upstreamA.enqueueFault({ kind: 'status', status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } } });
    const completion = await fixture.client.chat.completions.create(chat);
    expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream!');
    expect(fixture.upstreamB.requests).toHaveLength(1);
    const [row] = await fixture.logs();
    expect(attemptsOf(row!)).toEqual([[channelA, 429], [channelB, 200]]);
  });

  it('moves to another channel when the connection resets before headers', async () => {
    fixture.upstreamA.enqueueFault({ kind: 'reset-before-headers' });
    const completion = await fixture.client.chat.completions.create({ ...chat, stream: false });
    expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream!');
    const [row] = await fixture.logs();
    expect(attemptsOf(row!)).toEqual([[channelA, null], [channelB, 200]]);
  });

  it('gives up an answer larger than MAX_UPSTREAM_RESPONSE_MB without holding it, and bills the channel that answered', async () => {
    const huge = { id: 'chatcmpl-huge', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'x'.repeat(2 * 1024 * 1024) }, finish_reason: 'stop' }] };
    fixture.upstreamA.enqueueFault({ kind: 'status', status: 200, body: huge });
    const completion = await fixture.client.chat.completions.create(chat);
    expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream!');
    const [row] = await fixture.logs();
    expect(attemptsOf(row!)).toEqual([[channelA, null], [channelB, 200]]);
    expect(String((row!.attempts[0] as { error: string }).error)).toContain('larger than 1048576 bytes');
    expect(row!.quota).toBe(4);
    expect((await fixture.token()).used_quota).toBe(4);
  });

  it('moves to another channel when the first byte is slower than the timeout', async () => {
    fixture.upstreamA.enqueueFault({ kind: 'slow-first-byte', delayMs: 2500 });
    const completion = await fixture.client.chat.completions.create(chat);
    expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream!');
    const [row] = await fixture.logs();
    expect(attemptsOf(row!)).toEqual([[channelA, null], [channelB, 200]]);
    expect(String((row!.attempts[0] as { error: string }).error)).toContain('did not answer in time');
  });

  it('sends a request error (400) straight back without trying another channel, and charges nothing', async () => {
    const upstreamError = { error: { message: "Invalid value for 'temperature'", type: 'invalid_request_error', param: 'temperature', code: 'invalid_value' } };
    fixture.upstreamA.enqueueFault({ kind: 'status', status: 400, body: upstreamError });
    const error = await fixture.client.chat.completions.create(chat).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).error).toEqual(upstreamError.error);
    expect(fixture.upstreamB.requests).toHaveLength(0);
    const [row] = await fixture.logs();
    expect(row).toMatchObject({ status: 400, quota: 0, usage_source: 'none' });
    expect((await fixture.token()).used_quota).toBe(0);
  });

  it('answers the last upstream error when every channel fails, tries each channel once, and charges nothing', async () => {
    for (const upstream of [fixture.upstreamA, fixture.upstreamB]) {
      upstream.enqueueFault({ kind: 'status', status: 503, body: { error: { message: 'overloaded', type: 'server_error', param: null, code: null } } });
    }
    const error = (await fixture.client.chat.completions.create(chat).catch((caught: unknown) => caught)) as APIError;
    expect(error.status).toBe(503);
    expect(error.headers?.get('x-relay-attempts')).toBe('2');
    expect(fixture.upstreamA.requests).toHaveLength(1);
    expect(fixture.upstreamB.requests).toHaveLength(1);
    const [row] = await fixture.logs();
    expect(attemptsOf(row!)).toEqual([[channelA, 503], [channelB, 503]]);
    expect(row).toMatchObject({ quota: 0, status: 503 });
    const token = await fixture.token();
    expect(token.used_quota).toBe(0);
    expect(token.remain_quota).toBe(10_000_000);
  });

  it('ends the client stream with an error when the upstream cuts it after the first chunk, and bills what was produced', async () => {
    fixture.upstreamA.enqueueFault({ kind: 'cut-after-first-chunk' });
    const stream = await fixture.client.chat.completions.create({ ...chat, stream: true });
    let text = '';
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(fixture.upstreamB.requests).toHaveLength(0);
    const [row] = await fixture.logs();
    expect(row!.usage_source).toBe('local');
    expect(row!.error).toContain('interrupted');
    expect(row!.output_tokens).toBe(await countTextTokens(text));
    expect(row!.input_tokens).toBeGreaterThan(0);
    expect(row!.quota).toBeGreaterThan(0);
    expect((await fixture.token()).used_quota).toBe(row!.quota);
  });

  it('aborts the upstream at once when the client disconnects mid-stream and bills what was produced', async () => {
    fixture.upstreamA.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 5000 });
    const controller = new AbortController();
    const response = await fetch(`${fixture.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${clientKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat, stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('chat.completion.chunk');
    controller.abort();
    const started = Date.now();
    let rows = await fixture.logs();
    while (rows.length === 0 && Date.now() - started < 3000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rows = await fixture.logs();
    }
    expect(Date.now() - started).toBeLessThan(2000);
    expect(rows[0]).toMatchObject({ status: 499, error: 'client disconnected', usage_source: 'local' });
    expect(rows[0]!.quota).toBeGreaterThan(0);
    expect((await fixture.token()).used_quota).toBe(rows[0]!.quota);
  });

  it('sets a rejected key aside, serves from another channel and disables the dead channel', async () => {
    fixture.upstreamA.enqueueFault({ kind: 'status', status: 401, body: { error: { message: 'Incorrect API key provided: sk-upst***', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } });
    const completion = await fixture.client.chat.completions.create(chat);
    expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream!');
    const catalog = fixture.gateway.gateway.services.catalog;
    const started = Date.now();
    while (catalog.snapshot.channelsById.get(channelA)?.status === 'enabled' && Date.now() - started < 2000) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(catalog.snapshot.channelsById.get(channelA)?.status).toBe('auto_disabled');
    expect(catalog.snapshot.channelsById.get(channelA)?.statusReason).toContain('Incorrect API key');
    await fixture.client.chat.completions.create(chat);
    expect(fixture.upstreamA.requests).toHaveLength(1);

    // The operator's channel test sends a tiny request; success re-enables the channel.
    const tested = await fetch(`${fixture.gateway.url}/api/admin/channels/${channelA}/test`, { method: 'POST', headers: { authorization: `Bearer ${fixture.gateway.adminKey}` } });
    expect(await tested.json()).toMatchObject({ success: true, data: { status: 200, reenabled: true } });
    expect(fixture.upstreamA.requests.at(-1)!.body).toMatchObject({ max_tokens: 16 });
    expect(catalog.snapshot.channelsById.get(channelA)?.status).toBe('enabled');
    await fixture.client.chat.completions.create(chat);
    expect(fixture.upstreamA.requests).toHaveLength(3);
  });
});
