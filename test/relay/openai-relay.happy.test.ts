import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey, startRelayFixture, upstreamKeyA, type RelayFixture } from './relay-test-setup.js';

describe('OpenAI-style relay (happy paths, official openai SDK)', () => {
  let fixture: RelayFixture;

  beforeAll(async () => {
    fixture = await startRelayFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it('relays a non-streaming chat and sends the channel key, not the client key, upstream', async () => {
    const completion = await fixture.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] });
    expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream!');
    expect(completion.usage?.prompt_tokens).toBe(17);
    const received = fixture.upstreamA.requests.at(-1)!;
    expect(received.path).toBe('/v1/chat/completions');
    expect(received.headers.authorization).toBe(`Bearer ${upstreamKeyA}`);
    expect(JSON.stringify(received.headers)).not.toContain(clientKey);
  });

  it('forwards unknown and optional fields as sent', async () => {
    await fixture.client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } }] }],
      response_format: { type: 'json_object' },
      reasoning_effort: 'low',
      seed: 7,
      max_completion_tokens: 50,
      // @ts-expect-error an unknown field must pass through untouched
      vendor_extra: { keep: true },
    });
    const body = fixture.upstreamA.requests.at(-1)!.body;
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.reasoning_effort).toBe('low');
    expect(body.seed).toBe(7);
    expect(body.max_completion_tokens).toBe(50);
    expect(body.vendor_extra).toEqual({ keep: true });
    expect(body.messages[0].content[1]).toEqual({ type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } });
  });

  it('streams chat chunk by chunk, asks upstream for usage and strips the usage chunk the client did not ask for', async () => {
    const stream = await fixture.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }], stream: true });
    let text = '';
    let sawUsage = false;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) sawUsage = true;
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('Hello from the fake upstream!');
    expect(finish).toBe('stop');
    expect(sawUsage).toBe(false);
    expect(fixture.upstreamA.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
  });

  it('keeps the usage chunk when the client asked for include_usage', async () => {
    const stream = await fixture.client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Say hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 17, completion_tokens: 9, total_tokens: 26 });
  });

  it('relays tool calls, non-streaming and streaming', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }];
    const completion = await fixture.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, tool_choice: 'auto' });
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    expect(fixture.upstreamA.requests.at(-1)!.body.tool_choice).toBe('auto');

    const runner = fixture.client.chat.completions.stream({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools });
    const final = await runner.finalChatCompletion();
    const streamedCall = final.choices[0]!.message.tool_calls![0]!;
    expect(streamedCall.type === 'function' && streamedCall.function.name).toBe('get_weather');
    expect(streamedCall.type === 'function' && JSON.parse(streamedCall.function.arguments)).toEqual(call.type === 'function' ? JSON.parse(call.function.arguments) : undefined);
  });

  it('relays legacy completions, stream and not', async () => {
    const completion = await fixture.client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hello' });
    expect(completion.choices[0]?.text.length).toBeGreaterThan(0);
    const stream = await fixture.client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hello', stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    expect(text).toBe(completion.choices[0]?.text);
  });

  it('relays embeddings on both paths', async () => {
    const embeddings = await fixture.client.embeddings.create({ model: 'text-embedding-3-small', input: ['one', 'two'] });
    expect(embeddings.data).toHaveLength(2);
    expect(fixture.upstreamA.requests.at(-1)!.path).toBe('/v1/embeddings');
    const legacy = await fixture.client.post<{ data: unknown[] }>('/engines/text-embedding-3-small/embeddings', { body: { input: 'three' } });
    expect(legacy.data).toHaveLength(1);
    expect(fixture.upstreamA.requests.at(-1)!.body.model).toBe('text-embedding-3-small');
  });

  it('relays moderations without a model', async () => {
    const moderation = await fixture.client.moderations.create({ input: 'I will kill the process' });
    expect(moderation.results[0]?.flagged).toBe(true);
    expect(fixture.upstreamA.requests.at(-1)!.path).toBe('/v1/moderations');
    expect(fixture.upstreamA.requests.at(-1)!.body.model).toBe('omni-moderation-latest');
  });

  it('relays rerank in the spec shape', async () => {
    const reranked = await fixture.client.post<{ results: { index: number; relevance_score: number; document?: { text: string } }[] }>('/rerank', {
      body: { model: 'rerank-v1', query: 'capital of France', documents: ['Berlin is in Germany', 'Paris is the capital of France'], top_n: 1, return_documents: true },
    });
    expect(reranked.results).toHaveLength(1);
    expect(reranked.results[0]?.document?.text).toBe('Paris is the capital of France');
  });

  it('maps a model alias to the upstream name', async () => {
    await fixture.client.chat.completions.create({ model: 'alias-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(fixture.upstreamA.requests.at(-1)!.body.model).toBe('gpt-4o-mini');
  });

  it('logs each request with its channel, attempts, usage and charge, and bills the token exactly', async () => {
    // Earlier tests' requests settle after their answers (a local count first loads the tokenizer): let
    // them finish, so that neither the balance delta nor the newest log row is theirs.
    await fixture.logs();
    const before = await fixture.token();
    await fixture.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'bill me' }] }).withResponse();
    const after = await fixture.token();
    // 17 input × 0.15 + 9 output × 0.6 per 1M, × 500000 quota per unit = 3.975 → 4
    expect(after.used_quota - before.used_quota).toBe(4);
    expect(before.remain_quota - after.remain_quota).toBe(4);
    const [row] = await fixture.logs();
    expect(row).toMatchObject({ model: 'gpt-4o-mini', upstream_model: 'gpt-4o-mini', status: 200, input_tokens: 17, output_tokens: 9, quota: 4, usage_source: 'upstream', is_stream: 0 });
    expect(row!.attempts).toHaveLength(1);
    expect(row!.channel_id).toBe((row!.attempts[0] as { channel_id: number }).channel_id);
  });

  it('says which channel served and how many attempts it took', async () => {
    const { response } = await fixture.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(response.headers.get('x-relay-attempts')).toBe('1');
    expect(response.headers.get('x-relay-channel-id')).toMatch(/^\d+$/);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
  });
});
