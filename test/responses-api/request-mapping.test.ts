import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, styles, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { J } from './responses-support.js';

/**
 * What a Responses request becomes at each upstream style: instructions, string input, message items, a
 * function_call + function_call_output round trip, text.format, tool_choice, parallel_tool_calls,
 * max_output_tokens, temperature, top_p, reasoning.effort, user; the stateful fields (store,
 * previous_response_id, background, include, metadata) — documented choice (docs/behaviour.md "Styles and
 * conversion"): what cannot be carried becomes a warning in the log row. And bad input: 400 in OpenAI's
 * envelope, no charge, no upstream call.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  // The fixture's OpenAI models ('billed-chat', 'billed-responses') are named as no reasoning model: the
  // channels say they take reasoning settings, so the mapping of each one is what is checked here.
  fixture = await startBillingFixture({
    tokenQuota: 100_000_000,
    userQuota: 100_000_000,
    channelSettings: { 'openai-chat': { reasoning_effort: true }, 'openai-responses': { reasoning_effort: true } },
  });
});
afterAll(async () => fixture?.close());

const weather = { type: 'function' as const, name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: false };

/** Sends through the SDK (whole answer) and returns what the upstream received and the log row. */
async function sent(model: string, body: Record<string, unknown>) {
  const up = styles.find((style) => modelOf[style] === model)!;
  const before = fixture.primary[up].requests.length;
  await fixture.sdk.openai.responses.create({ model, ...body } as any);
  expect(fixture.primary[up].requests.length - before).toBe(1);
  const logs = await fixture.logs();
  return { upstream: fixture.primary[up].requests.at(-1)!.body as any, row: logs.at(-1) };
}

describe('the full set of carried fields, per upstream style', () => {
  const body = {
    instructions: 'Be brief.',
    input: [
      { role: 'user', content: 'Weather in Paris?' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '18C and sunny' },
    ],
    tools: [weather],
    tool_choice: 'auto',
    parallel_tool_calls: false,
    max_output_tokens: 300,
    temperature: 0.5,
    top_p: 0.9,
    user: 'end-user-7',
    text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false }, strict: true } },
  };

  it('openai-chat upstream', async () => {
    const { upstream } = await sent(modelOf['openai-chat'], body);
    expect(upstream.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '18C and sunny' },
    ]);
    expect(upstream).toMatchObject({ tool_choice: 'auto', parallel_tool_calls: false, temperature: 0.5, top_p: 0.9, user: 'end-user-7' });
    expect(upstream.max_tokens ?? upstream.max_completion_tokens).toBe(300);
    expect(upstream.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema: body.text.format.schema, strict: true } });
    expect(upstream.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: weather.parameters } }]);
  });

  it('anthropic upstream', async () => {
    const { upstream } = await sent(modelOf.anthropic, body);
    expect(upstream.system).toBe('Be brief.');
    expect(upstream.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: '18C and sunny' }] }] },
    ].map((message) => expect.objectContaining({ role: message.role, content: message.content.map((part) => expect.objectContaining(part)) })));
    expect(upstream).toMatchObject({ max_tokens: 300, temperature: 0.5, top_p: 0.9, metadata: { user_id: 'end-user-7' }, tool_choice: { type: 'auto', disable_parallel_tool_use: true } });
    expect(upstream.output_config).toEqual({ format: { type: 'json_schema', schema: body.text.format.schema } });
  });

  it('gemini upstream', async () => {
    const { upstream } = await sent(modelOf.gemini, body);
    expect(upstream.systemInstruction).toMatchObject({ parts: [{ text: 'Be brief.' }] });
    expect(upstream.contents.map((content: any) => content.role)).toEqual(['user', 'model', 'user']);
    expect(upstream.contents[1].parts[0].functionCall).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
    expect(upstream.contents[2].parts[0].functionResponse).toMatchObject({ name: 'get_weather' });
    expect(upstream.generationConfig).toMatchObject({ maxOutputTokens: 300, temperature: 0.5, topP: 0.9, responseMimeType: 'application/json', responseJsonSchema: body.text.format.schema });
  });

  it('openai-responses upstream: the client bytes go up untouched (model only)', async () => {
    const { upstream } = await sent(modelOf['openai-responses'], { ...body, store: true, metadata: { a: '1' }, include: ['reasoning.encrypted_content'], previous_response_id: 'resp_prev' });
    expect(upstream).toEqual({ model: modelOf['openai-responses'], ...body, store: true, metadata: { a: '1' }, include: ['reasoning.encrypted_content'], previous_response_id: 'resp_prev' });
  });
});

describe('other single fields', () => {
  it.each(['openai-chat', 'anthropic', 'gemini'] as const)('a plain string input and text.format json_object → %s', async (up) => {
    const { upstream, row } = await sent(modelOf[up], { input: 'Say hello', text: { format: { type: 'json_object' } } });
    if (up === 'openai-chat') {
      expect(upstream.messages).toEqual([{ role: 'user', content: 'Say hello' }]);
      expect(upstream.response_format).toEqual({ type: 'json_object' });
    }
    if (up === 'anthropic') {
      expect(upstream.messages).toEqual([{ role: 'user', content: [expect.objectContaining({ type: 'text', text: 'Say hello' })] }]);
      expect(row.warnings).toContain('json_object');
    }
    if (up === 'gemini') {
      expect(upstream.contents).toEqual([{ role: 'user', parts: [{ text: 'Say hello' }] }]);
      expect(upstream.generationConfig.responseMimeType).toBe('application/json');
    }
  });

  it.each(['openai-chat', 'anthropic', 'gemini'] as const)('reasoning.effort "low" → %s', async (up) => {
    const { upstream } = await sent(modelOf[up], { input: 'Think', reasoning: { effort: 'low' }, max_output_tokens: 8000 });
    if (up === 'openai-chat') expect(upstream.reasoning_effort).toBe('low');
    if (up === 'anthropic') expect(upstream.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    if (up === 'gemini') expect(upstream.generationConfig.thinkingConfig).toBeDefined();
  });

  it.each(['openai-chat', 'anthropic', 'gemini'] as const)('tool_choice {type: function, name} → %s', async (up) => {
    const { upstream } = await sent(modelOf[up], { input: 'Weather?', tools: [weather], tool_choice: { type: 'function', name: 'get_weather' } });
    if (up === 'openai-chat') expect(upstream.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    if (up === 'anthropic') expect(upstream.tool_choice).toEqual({ type: 'tool', name: 'get_weather' });
    if (up === 'gemini') expect(upstream.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
  });

  it.each(['openai-chat', 'anthropic', 'gemini'] as const)('stateful fields (store, previous_response_id, background) to %s: served, each named in the log row warnings', async (up) => {
    const { upstream, row } = await sent(modelOf[up], { input: 'hi', store: true, previous_response_id: 'resp_prev', background: true, metadata: { k: 'v' }, include: ['reasoning.encrypted_content'] });
    const raw = J(upstream);
    for (const field of ['previous_response_id', 'resp_prev', 'background', 'store', 'include']) expect(raw).not.toContain(field);
    for (const field of ['previous_response_id', 'store', 'background']) expect(row.warnings).toContain(field);
  });
});

describe('bad Responses input: 400 in the OpenAI envelope, no charge, no upstream call', () => {
  const cases: { name: string; body: Record<string, unknown>; param?: string }[] = [
    { name: 'input missing', body: {}, param: 'input' },
    { name: 'input as object', body: { input: { role: 'user', content: 'hi' } }, param: 'input' },
    { name: 'message with unknown role', body: { input: [{ role: 'wizard', content: 'hi' }] }, param: 'input[0].role' },
    { name: 'message content as number', body: { input: [{ role: 'user', content: 5 }] }, param: 'input[0].content' },
    { name: 'function_call_output without call_id', body: { input: [{ type: 'function_call_output', output: 'x' }] }, param: 'input[0].call_id' },
    { name: 'instructions as number', body: { input: 'hi', instructions: 5 }, param: 'instructions' },
    { name: 'temperature as string', body: { input: 'hi', temperature: 'hot' }, param: 'temperature' },
    { name: 'tools as string', body: { input: 'hi', tools: 'x' }, param: 'tools' },
    { name: 'tool_choice unknown string', body: { input: 'hi', tool_choice: 'sometimes' }, param: 'tool_choice' },
    { name: 'text.format unknown type', body: { input: 'hi', text: { format: { type: 'xml' } } }, param: 'text.format.type' },
    { name: 'json_schema format without schema', body: { input: 'hi', text: { format: { type: 'json_schema', name: 'x' } } } },
    { name: 'max_output_tokens 0', body: { input: 'hi', max_output_tokens: 0 }, param: 'max_output_tokens' },
    { name: 'parallel_tool_calls as string', body: { input: 'hi', parallel_tool_calls: 'no' }, param: 'parallel_tool_calls' },
  ];
  // An empty conversation is refused on /v1/chat/completions (`messages: []` → 400, test/bad-input); the
  // same request in Responses style must not reach (and pay) an upstream of another style either. (A
  // Responses channel gets the client's bytes: what OpenAI itself does with them is its own answer.)
  const emptyConversations = [
    { name: 'input: empty array', body: { input: [] } },
    { name: 'input: only an unknown item type (dropped with a warning, leaving nothing)', body: { input: [{ type: 'bogus_item', foo: 1 }] } },
    { name: 'input: only an item_reference (dropped, leaving nothing)', body: { input: [{ type: 'item_reference', id: 'msg_1' }] } },
  ];
  const all = [
    ...cases.flatMap((c) => styles.map((up) => ({ ...c, up }))),
    ...emptyConversations.flatMap((c) => (['openai-chat', 'anthropic', 'gemini'] as const).map((up) => ({ ...c, param: undefined as string | undefined, up }))),
  ];
  it.each(all)('$name → $up channel', async ({ body, param, up }) => {
    const before = await fixture.balances();
    const calls = fixture.primary[up].requests.length;
    const response = await fetch(`${fixture.gateway.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${fixture.sdk.openai.apiKey}`, 'content-type': 'application/json' }, body: J({ model: modelOf[up], ...body }) });
    const text = await response.text();
    await fixture.settled();
    expect(response.status, text).toBe(400);
    const envelope = JSON.parse(text);
    expect(envelope.error).toMatchObject({ message: expect.stringContaining('(request id: '), type: expect.any(String) });
    if (param !== undefined) expect(envelope.error.param).toBe(param);
    expect(fixture.primary[up].requests.length - calls, 'no upstream call').toBe(0);
    expect(await fixture.balances()).toEqual(before);
  });
});
