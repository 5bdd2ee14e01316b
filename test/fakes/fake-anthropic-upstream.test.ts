import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropicUpstream, type FakeAnthropicUpstream } from './fake-anthropic-upstream.js';
import { readBodyPieces } from './read-body-pieces.js';

let fake: FakeAnthropicUpstream;
let client: Anthropic;

beforeEach(async () => {
  fake = await startFakeAnthropicUpstream();
  client = new Anthropic({ apiKey: 'sk-ant-test-key', baseURL: fake.url, maxRetries: 0 });
});

afterEach(async () => {
  await fake.close();
});

const weatherTool = { name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object' as const, properties: { location: { type: 'string' } }, required: ['location'] } };
const hi = [{ role: 'user' as const, content: 'Hi' }];
const anthropicHeaders = { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test-key', 'anthropic-version': '2023-06-01' };

function postMessages(body: unknown, headers: Record<string, string> = anthropicHeaders, path = '/v1/messages'): Promise<Response> {
  return fetch(`${fake.url}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** Test assertions walk arbitrary JSON bodies. */
const readJson = (response: Response): Promise<any> => response.json();

/** The events of a whole Anthropic SSE body, checking the framing on the way: `event: X\ndata: {"type":"X",…}\n\n`. */
function sseEventsOf(text: string): Array<{ event: string; data: any; raw: string }> {
  expect(text.endsWith('\n\n')).toBe(true);
  return text.slice(0, -2).split('\n\n').map((block) => {
    const match = /^event: ([a-z_]+)\ndata: (\{[^\n]*\})$/.exec(block);
    expect(match, block).not.toBeNull();
    const data = JSON.parse(match![2]!);
    expect(data.type).toBe(match![1]);
    return { event: match![1]!, data, raw: match![2]! };
  });
}

describe('fake Anthropic upstream: messages', () => {
  it('answers messages.create with a message the SDK parses, in the recorded key order, and records the request', async () => {
    const message = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 100, messages: hi });
    expect(message).toEqual({
      model: 'claude-sonnet-5-5',
      id: expect.stringMatching(/^msg_01[A-Za-z0-9]{22}$/),
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello from the fake upstream!' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 17, cache_creation_input_tokens: 0, cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        output_tokens: 9, service_tier: 'standard', inference_geo: 'not_available',
      },
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/v1/messages', body: { model: 'claude-sonnet-5-5', max_tokens: 100, messages: hi } });
    // SDK 1.x speaks API version 2026-10-21 and sends the key as a bearer token.
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-ant-test-key');
    expect(fake.requests[0]!.headers['anthropic-version']).toBe('2026-10-21');

    const raw = await postMessages({ model: 'claude-sonnet-5-5', max_tokens: 100, messages: hi });
    expect(raw.headers.get('content-type')).toBe('application/json');
    expect(raw.headers.get('request-id')).toMatch(/^req_011C/);
    const text = await raw.text();
    expect(text).toMatch(/^\{"model":"claude-sonnet-5-5","id":"msg_[^"]+","type":"message","role":"assistant","content":\[/);
    expect(text).toContain('"usage":{"input_tokens":17,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation":{');
  });

  it('frames a stream as Anthropic does: message_start, block start, ping, text deltas, block stop, message_delta, message_stop', async () => {
    const response = await postMessages({ model: 'claude-sonnet-5-5', max_tokens: 100, stream: true, messages: hi });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('request-id')).toMatch(/^req_011C/);
    const events = sseEventsOf(await response.text());
    expect(events.map((event) => event.event)).toEqual([
      'message_start', 'content_block_start', 'ping',
      'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_delta',
      'content_block_stop', 'message_delta', 'message_stop',
    ]);
    expect(events[0]!.raw).toMatch(/^\{"type":"message_start","message":\{"model":"claude-sonnet-5-5","id":"msg_01[^"]+","type":"message","role":"assistant","content":\[\],"stop_reason":null,"stop_sequence":null,"usage":\{"input_tokens":17,/);
    expect(events[0]!.data.message.usage.output_tokens).toBe(1);
    expect(events[1]!.raw).toBe('{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}');
    expect(events[2]!.raw).toBe('{"type":"ping"}');
    expect(events[3]!.raw).toMatch(/^\{"type":"content_block_delta","index":0,"delta":\{"type":"text_delta","text":"[^"]+"\}\}$/);
    expect(events.slice(3, 8).map((event) => event.data.delta.text).join('')).toBe('Hello from the fake upstream!');
    expect(events[8]!.raw).toBe('{"type":"content_block_stop","index":0}');
    expect(events[9]!.raw).toBe('{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":17,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":9}}');
    expect(events[10]!.raw).toBe('{"type":"message_stop"}');
  });

  it('streams to the SDK: messages.stream gives text events and a final message', async () => {
    const stream = client.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 100, messages: hi });
    let streamed = '';
    stream.on('text', (delta) => (streamed += delta));
    const final = await stream.finalMessage();
    expect(streamed).toBe('Hello from the fake upstream!');
    expect(final.content).toEqual([{ type: 'text', text: 'Hello from the fake upstream!' }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage).toMatchObject({ input_tokens: 17, output_tokens: 9 });
    expect(fake.requests[0]!.body.stream).toBe(true);
  });

  it('reports configured cache reads and writes', async () => {
    fake.setOptions({ cacheReadTokens: 40, cacheWriteTokens: 8, inputTokens: 3 });
    const message = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 100, messages: hi });
    expect(message.usage).toMatchObject({ input_tokens: 3, cache_read_input_tokens: 40, cache_creation_input_tokens: 8, cache_creation: { ephemeral_5m_input_tokens: 8, ephemeral_1h_input_tokens: 0 } });
    const final = await client.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 100, messages: hi }).finalMessage();
    expect(final.usage).toMatchObject({ input_tokens: 3, cache_read_input_tokens: 40, cache_creation_input_tokens: 8 });
  });

  it('truncates to max_tokens words with stop_reason "max_tokens", streamed or not', async () => {
    const cut = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 2, messages: hi });
    expect(cut.content).toEqual([{ type: 'text', text: 'Hello from' }]);
    expect(cut.stop_reason).toBe('max_tokens');
    expect(cut.usage.output_tokens).toBe(2);

    const events = sseEventsOf(await (await postMessages({ model: 'm', max_tokens: 3, stream: true, messages: hi })).text());
    expect(events.filter((event) => event.event === 'content_block_delta').map((event) => event.data.delta.text).join('')).toBe('Hello from the');
    expect(events.find((event) => event.event === 'message_delta')!.data).toMatchObject({ delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 3 } });
  });
});

describe('fake Anthropic upstream: tools and thinking', () => {
  it('streams a tool_use block as input_json_delta fragments the SDK reassembles', async () => {
    const final = await client.messages.stream({ model: 'claude-sonnet-5-5', max_tokens: 100, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] }).finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content).toEqual([{ type: 'tool_use', id: expect.stringMatching(/^toolu_01[A-Za-z0-9]{22}$/), name: 'get_weather', input: { location: 'Paris' } }]);

    const events = sseEventsOf(await (await postMessages({ model: 'm', max_tokens: 100, stream: true, messages: hi, tools: [weatherTool] })).text());
    expect(events.map((event) => event.event).slice(0, 4)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'ping']);
    expect(events[1]!.data.content_block).toEqual({ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: {} });
    const fragments = events.filter((event) => event.event === 'content_block_delta').map((event) => event.data.delta);
    expect(fragments.every((delta) => delta.type === 'input_json_delta')).toBe(true);
    expect(fragments[0].partial_json).toBe('');
    expect(fragments.length).toBeGreaterThan(2);
    expect(fragments.map((delta) => delta.partial_json).join('')).toBe('{"location": "Paris"}');
    expect(events.find((event) => event.event === 'message_delta')!.data.delta.stop_reason).toBe('tool_use');
  });

  it('answers a non-streamed tool call, then text once the last user turn carries the tool_result', async () => {
    const call = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 100, messages: [{ role: 'user', content: 'Weather?' }], tools: [weatherTool] });
    expect(call.stop_reason).toBe('tool_use');
    const toolUse = call.content[0]!;
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { location: 'Paris' } });
    if (toolUse.type !== 'tool_use') throw new Error('expected a tool_use block');

    const answer = await client.messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 100,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: call.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '{"sky":"clear"}' }] },
      ],
    });
    expect(answer.stop_reason).toBe('end_turn');
    expect(answer.content).toEqual([{ type: 'text', text: 'Hello from the fake upstream!' }]);
  });

  it('honours tool_choice: a named tool is the one called, "none" gets text', async () => {
    const otherTool = { name: 'get_time', input_schema: { type: 'object' as const, properties: { zone: { type: 'string', enum: ['UTC', 'CET'] } } } };
    const named = await client.messages.create({ model: 'm', max_tokens: 100, messages: hi, tools: [weatherTool, otherTool], tool_choice: { type: 'tool', name: 'get_time' } });
    expect(named.content[0]).toMatchObject({ type: 'tool_use', name: 'get_time', input: { zone: 'UTC' } });
    const none = await client.messages.create({ model: 'm', max_tokens: 100, messages: hi, tools: [weatherTool], tool_choice: { type: 'none' } });
    expect(none.content[0]).toMatchObject({ type: 'text' });
  });

  it('puts a signed thinking block first, streaming thinking_deltas then one signature_delta before its block stop', async () => {
    fake.setOptions({ thinking: true });
    const params = { model: 'claude-sonnet-5-5', max_tokens: 2000, thinking: { type: 'enabled' as const, budget_tokens: 1024 }, messages: hi };
    const final = await client.messages.stream(params).finalMessage();
    expect(final.content).toHaveLength(2);
    expect(final.content[0]).toEqual({ type: 'thinking', thinking: expect.stringMatching(/\S/), signature: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) });
    expect(final.content[1]).toEqual({ type: 'text', text: 'Hello from the fake upstream!' });
    expect(final.usage.output_tokens).toBe(9 + 12);

    const whole = await client.messages.create(params);
    expect(whole.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(whole.content[0]).toMatchObject({ type: 'thinking', thinking: (final.content[0] as Anthropic.ThinkingBlock).thinking, signature: expect.any(String) });

    const events = sseEventsOf(await (await postMessages({ ...params, stream: true })).text());
    expect(events[1]!.raw).toBe('{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}');
    expect(events[2]!.event).toBe('ping');
    const firstStop = events.findIndex((event) => event.event === 'content_block_stop');
    const thinkingDeltas = events.slice(3, firstStop).map((event) => event.data.delta);
    expect(thinkingDeltas.slice(0, -1).every((delta) => delta.type === 'thinking_delta')).toBe(true);
    expect(thinkingDeltas.at(-1)).toEqual({ type: 'signature_delta', signature: expect.any(String) });
    expect(events[firstStop + 1]!.data).toEqual({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } });
    expect(events.filter((event) => event.event === 'ping')).toHaveLength(1);
  });

  it('thinks before a tool call too', async () => {
    fake.setOptions({ thinking: true });
    const final = await client.messages.stream({ model: 'm', max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: hi, tools: [weatherTool] }).finalMessage();
    expect(final.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
    expect(final.content[1]).toMatchObject({ name: 'get_weather', input: { location: 'Paris' } });
    expect(final.stop_reason).toBe('tool_use');
  });

  it('takes its thinking back as it gave it, and refuses it with its text changed as Anthropic does', async () => {
    fake.setOptions({ thinking: true });
    const params = { model: 'm', max_tokens: 2000, thinking: { type: 'enabled' as const, budget_tokens: 1024 }, tools: [weatherTool] };
    const call = await client.messages.stream({ ...params, messages: hi }).finalMessage();
    const [thinking, toolUse] = call.content as [Anthropic.ThinkingBlock, Anthropic.ToolUseBlock];
    const next = (replayed: Anthropic.ThinkingBlock) =>
      client.messages.create({ ...params, messages: [...hi, { role: 'assistant', content: [replayed, toolUse] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'sunny' }] }] });
    expect((await next(thinking)).content.map((block) => block.type)).toEqual(['thinking', 'text']);
    for (const altered of [`${thinking.thinking} `, '']) {
      const error = await next({ ...thinking, thinking: altered }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect(error).toMatchObject({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error', message: 'messages.1.content.0: Invalid `signature` in `thinking` block' } } });
    }
    // A signature it did not give (another test's made-up one) is not checked.
    expect((await next({ ...thinking, thinking: 'other', signature: 'EqQBCgIYAh==' })).stop_reason).toBe('end_turn');
  });
});

describe('fake Anthropic upstream: keys and request errors', () => {
  it('answers a wrong key with 401 authentication_error in Anthropic\'s body and a request-id header', async () => {
    fake.setOptions({ expectedKeys: ['sk-ant-good'] });
    const error = await client.messages.create({ model: 'm', max_tokens: 10, messages: hi }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error).toMatchObject({ status: 401, error: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' }, request_id: expect.stringMatching(/^req_/) } });
    expect((error as InstanceType<typeof Anthropic.AuthenticationError>).requestID).toMatch(/^req_011C/);

    const { 'x-api-key': _omitted, ...withoutKey } = anthropicHeaders;
    const missing = await postMessages({ model: 'm', max_tokens: 10, messages: hi }, withoutKey);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('request-id')).toMatch(/^req_/);
    expect(await readJson(missing)).toEqual({ type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' }, request_id: expect.any(String) });

    const wrongRaw = await postMessages({ model: 'm', max_tokens: 10, messages: hi }, { ...anthropicHeaders, 'x-api-key': 'sk-ant-bad' });
    expect((await readJson(wrongRaw)).error).toEqual({ type: 'authentication_error', message: 'invalid x-api-key' });

    // The key is accepted from x-api-key (raw callers, older SDKs) and as a bearer token (SDK 1.x).
    const good = await new Anthropic({ apiKey: 'sk-ant-good', baseURL: fake.url, maxRetries: 0 }).messages.create({ model: 'm', max_tokens: 10, messages: hi });
    expect(good.content[0]).toMatchObject({ type: 'text' });
    const goodRaw = await postMessages({ model: 'm', max_tokens: 10, messages: hi }, { ...anthropicHeaders, 'x-api-key': 'sk-ant-good' });
    expect(goodRaw.status).toBe(200);
  });

  it('rejects an unknown anthropic-version, and temperature/top_p/top_k on version 2026-10-21 only', async () => {
    const unknown = await postMessages({ model: 'm', max_tokens: 10, messages: hi }, { ...anthropicHeaders, 'anthropic-version': '2024-13-01' });
    expect(unknown.status).toBe(400);
    expect((await readJson(unknown)).error).toEqual({ type: 'invalid_request_error', message: 'anthropic-version: "2024-13-01" is not a valid version' });

    const newVersion = await postMessages({ model: 'm', max_tokens: 10, temperature: 1, messages: hi }, { ...anthropicHeaders, 'anthropic-version': '2026-10-21' });
    expect(newVersion.status).toBe(400);
    expect((await readJson(newVersion)).error).toEqual({ type: 'invalid_request_error', message: 'temperature: Extra inputs are not permitted' });

    const oldVersion = await postMessages({ model: 'm', max_tokens: 10, temperature: 0.2, top_k: 5, messages: hi });
    expect(oldVersion.status).toBe(200);
  });

  it('requires the anthropic-version header, max_tokens, model and a JSON body, with 400 invalid_request_error', async () => {
    const { 'anthropic-version': _omitted, ...withoutVersion } = anthropicHeaders;
    const noVersion = await postMessages({ model: 'm', max_tokens: 10, messages: hi }, withoutVersion);
    expect(noVersion.status).toBe(400);
    expect(await readJson(noVersion)).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' }, request_id: expect.any(String) });

    const noMaxTokens = await postMessages({ model: 'm', messages: hi });
    expect(noMaxTokens.status).toBe(400);
    expect((await readJson(noMaxTokens)).error).toEqual({ type: 'invalid_request_error', message: 'max_tokens: Field required' });

    const noModel = await postMessages({ max_tokens: 10, messages: hi });
    expect((await readJson(noModel)).error.message).toBe('model: Field required');

    const notJson = await postMessages('{not json');
    expect(notJson.status).toBe(400);
    expect((await readJson(notJson)).error.type).toBe('invalid_request_error');
    expect(fake.requests.at(-1)!.body).toBe('{not json');

    const viaSdk = await client.messages.create({ model: 'm', messages: hi } as unknown as Anthropic.MessageCreateParamsNonStreaming).catch((caught: unknown) => caught);
    expect(viaSdk).toBeInstanceOf(Anthropic.BadRequestError);
    expect((viaSdk as Error).message).toContain('max_tokens: Field required');
  });

  it('answers messages.countTokens with { input_tokens } (the inputTokens option) and refuses max_tokens as Anthropic does', async () => {
    fake.setOptions({ inputTokens: 42 });
    expect(await client.messages.countTokens({ model: 'claude-sonnet-5-5', messages: hi })).toEqual({ input_tokens: 42 });
    expect(fake.requests.at(-1)).toMatchObject({ method: 'POST', path: '/v1/messages/count_tokens', body: { model: 'claude-sonnet-5-5', messages: hi } });
    const withLimit = await postMessages({ model: 'm', max_tokens: 10, messages: hi }, anthropicHeaders, '/v1/messages/count_tokens');
    expect(withLimit.status).toBe(400);
    expect((await readJson(withLimit)).error.message).toBe('max_tokens: Extra inputs are not permitted');
  });

  it('answers an unknown path with 404 not_found_error', async () => {
    const missing = await postMessages({}, anthropicHeaders, '/v1/nothing');
    expect(missing.status).toBe(404);
    expect((await readJson(missing)).error.type).toBe('not_found_error');
  });
});

describe('fake Anthropic upstream: faults', () => {
  const streamBody = { model: 'claude-sonnet-5-5', max_tokens: 100, stream: true, messages: hi };

  it('answers the next request only with a queued status fault, in Anthropic\'s error shape, keeping its headers and body', async () => {
    fake.enqueueFault({ kind: 'status', status: 429, headers: { 'retry-after': '2' } });
    fake.enqueueFault({ kind: 'status', status: 529 });
    fake.enqueueFault({ kind: 'status', status: 500, body: { type: 'error', error: { type: 'api_error', message: 'custom' } } });

    const limited = await postMessages(streamBody);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.headers.get('request-id')).toMatch(/^req_/);
    expect(await readJson(limited)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' }, request_id: expect.any(String) });

    const overloaded = await client.messages.create({ model: 'm', max_tokens: 10, messages: hi }).catch((caught: unknown) => caught);
    expect(overloaded).toMatchObject({ status: 529, error: { error: { type: 'overloaded_error', message: 'Overloaded' } } });

    const failed = await postMessages(streamBody);
    expect(failed.status).toBe(500);
    expect(await readJson(failed)).toEqual({ type: 'error', error: { type: 'api_error', message: 'custom' } });

    const healthy = await postMessages(streamBody);
    expect(healthy.status).toBe(200);
    await healthy.text();
    expect(fake.requests).toHaveLength(4);
  });

  it('resets the connection before any header, after recording the request', async () => {
    fake.enqueueFault({ kind: 'reset-before-headers' });
    await expect(postMessages(streamBody)).rejects.toThrow();
    expect(fake.requests[0]!.body).toMatchObject({ model: 'claude-sonnet-5-5' });
  });

  it('cuts a stream right after its first event, which the SDK reports as an error', async () => {
    fake.enqueueFault({ kind: 'cut-after-first-chunk' });
    const response = await postMessages(streamBody);
    expect(response.status).toBe(200);
    const { pieces, error } = await readBodyPieces(response);
    expect(error).toBeDefined();
    expect(pieces.map((piece) => piece.text).join('')).toMatch(/^event: message_start\ndata: \{[^\n]*\}\n\n$/);

    fake.enqueueFault({ kind: 'cut-after-first-chunk' });
    await expect(client.messages.stream({ model: 'm', max_tokens: 100, messages: hi }).finalMessage()).rejects.toThrow();
  });

  it('cuts a JSON body halfway', async () => {
    fake.enqueueFault({ kind: 'cut-after-first-chunk' });
    const response = await postMessages({ ...streamBody, stream: false });
    await expect(response.text()).rejects.toThrow();
  });

  it('waits before sending headers on slow-first-byte', async () => {
    fake.enqueueFault({ kind: 'slow-first-byte', delayMs: 150 });
    const started = performance.now();
    const response = await postMessages(streamBody);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(sseEventsOf(await response.text()).at(-1)!.event).toBe('message_stop');
  });

  it('stalls after the first event, then finishes the stream', async () => {
    fake.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 200 });
    const response = await postMessages(streamBody);
    const { pieces, error } = await readBodyPieces(response);
    expect(error).toBeUndefined();
    expect(pieces[0]!.text).toMatch(/^event: message_start\n/);
    const secondAt = pieces.find((piece, index) => index > 0)!.at;
    expect(secondAt - pieces[0]!.at).toBeGreaterThanOrEqual(180);
    expect(sseEventsOf(pieces.map((piece) => piece.text).join('')).at(-1)!.event).toBe('message_stop');
  });

  it('spaces events by chunkDelayMs', async () => {
    fake.setOptions({ chunkDelayMs: 20 });
    const started = performance.now();
    const events = sseEventsOf(await (await postMessages(streamBody)).text());
    expect(events).toHaveLength(11);
    expect(performance.now() - started).toBeGreaterThanOrEqual(10 * 20 - 10); // 11 events, 10 gaps
  });

  it('closes promptly while a stream is stalled, and close() may be called again', async () => {
    fake.enqueueFault({ kind: 'stall-after-first-chunk', delayMs: 60_000 });
    const response = await postMessages(streamBody);
    const reading = readBodyPieces(response);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await fake.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect((await reading).error).toBeDefined();
  });
});
