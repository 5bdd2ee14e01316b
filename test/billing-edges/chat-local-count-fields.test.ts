/**
 * From the Chat-parameters audit (money): what a Chat pass-through answer without usage is counted locally
 * from. Spoken output (gpt-4o-audio-preview's `audio.transcript`), `reasoning_content` of a whole answer,
 * OpenRouter's / vLLM's `reasoning` in a stream, and `refusal` were left out, so an answer cut before its
 * usage (or sent without it) billed the prompt alone. And a `response_format.json_schema`, which OpenAI
 * bills as input, was not in the prompt estimate: a large schema on a small balance was admitted.
 * docs/behaviour.md "Billing". Client: the official openai SDK; upstream: scripted; expected figures from
 * the formula (o200k counts, $/M × tokens × 500,000 units per $, rounded half up once).
 */
import OpenAI from 'openai';
import { countTokens } from 'gpt-tokenizer';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const clientKey = `sk-${'c'.repeat(48)}`;
const smallKey = `sk-${'s'.repeat(48)}`;
let upstream: ScriptedUpstream;
let gateway: TestGateway;
let sdk: OpenAI;

/** $ per 1M tokens; quota_per_unit 500,000 (default). */
const prices = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-audio-preview': { input: 2.5, output: 10, audio_input: 40, audio_output: 80 },
  'deepseek-reasoner': { input: 0.55, output: 2.19 },
};

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  gateway = await startTestGateway({
    config: {
      retry_times: 0,
      prices,
      channels: [
        { name: 'oai', type: 'openai', base_url: upstream.url, key: 'sk-up', models: Object.keys(prices), groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings: {} },
      ],
      users: [{ username: 'u', role: 'user', group: 'default', quota: 1_000_000_000, enabled: true }],
      tokens: [
        { name: 'big', user: 'u', key: clientKey, quota: 1_000_000_000, expires_at: 0, enabled: true },
        // $0.06: 24,000 input tokens of gpt-4o.
        { name: 'small', user: 'u', key: smallKey, quota: 30_000, expires_at: 0, enabled: true },
      ],
    },
  });
  sdk = new OpenAI({ apiKey: clientKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
beforeEach(() => upstream.clearQueue());

async function lastLog(): Promise<any> {
  await gateway.settled();
  return (await gateway.gateway.services.database.db.selectFrom('logs').selectAll().orderBy('id').execute()).at(-1);
}

/** Σ $/M × tokens → units (500,000 per $), rounded half up once, as compute-charge does. */
const charge = (...parts: [dollarsPerM: number, tokens: number][]) => Math.round(parts.reduce((sum, [price, tokens]) => sum + price * tokens, 0) / 2);

/** Reads a stream to its end or its cut (the SDK raises on a reset). */
async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  await (async () => {
    for await (const _chunk of stream) void _chunk;
  })().catch(() => undefined);
}

const chunkBase = (model: string) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model });

describe('spoken output (audio.transcript) counted locally, as audio output', () => {
  it('a streamed audio answer cut before its usage is billed its transcript at audio_output, not the prompt alone', async () => {
    const transcript = 'Here is a fairly long spoken answer about the weather in Paris today and tomorrow. '.repeat(20);
    const base = chunkBase('gpt-4o-audio-preview');
    const sse = [
      { data: { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: null, audio: { id: 'audio_1' } }, finish_reason: null }] } },
      ...transcript.match(/.{1,40}/g)!.map((piece) => ({ data: { ...base, choices: [{ index: 0, delta: { audio: { transcript: piece, data: 'AAAA'.repeat(50) } }, finish_reason: null }] } })),
    ];
    upstream.enqueue({ sse, ending: 'reset' });
    await drain(await sdk.chat.completions.create({ model: 'gpt-4o-audio-preview', modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'pcm16' }, messages: [{ role: 'user', content: 'hi' }], stream: true }));
    const row = await lastLog();
    const spoken = countTokens(transcript);
    expect({ source: row.usage_source, output: Number(row.output_tokens), audio: Number(row.audio_output_tokens) }).toEqual({ source: 'local', output: spoken, audio: spoken });
    expect(Number(row.quota)).toBe(charge([2.5, Number(row.input_tokens)], [80, spoken]));
  });

  it('a whole audio answer without usage is billed its transcript at audio_output', async () => {
    const transcript = 'A spoken answer about the weather, with enough words to be counted. '.repeat(10);
    upstream.enqueue({ json: { id: 'c4', object: 'chat.completion', created: 1, model: 'gpt-4o-audio-preview', choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, audio: { id: 'audio_2', data: 'AAAA', expires_at: 1, transcript } }, finish_reason: 'stop' }] } });
    await sdk.chat.completions.create({ model: 'gpt-4o-audio-preview', modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' }, messages: [{ role: 'user', content: 'hi' }] });
    const row = await lastLog();
    const spoken = countTokens(transcript);
    expect({ source: row.usage_source, output: Number(row.output_tokens), audio: Number(row.audio_output_tokens) }).toEqual({ source: 'local', output: spoken, audio: spoken });
    expect(Number(row.quota)).toBe(charge([2.5, Number(row.input_tokens)], [80, spoken]));
  });

  it('on a model whose price sets no audio_output, the transcript is billed at the output price', async () => {
    const transcript = 'Spoken words of a model priced for text only. '.repeat(10);
    upstream.enqueue({ json: { id: 'c4b', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: null, audio: { id: 'audio_3', data: 'AAAA', expires_at: 1, transcript } }, finish_reason: 'stop' }] } });
    await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    const row = await lastLog();
    const spoken = countTokens(transcript);
    expect({ output: Number(row.output_tokens), quota: Number(row.quota) }).toEqual({ output: spoken, quota: charge([2.5, Number(row.input_tokens)], [10, spoken]) });
  });
});

describe('reasoning text and refusals counted locally', () => {
  it('a whole answer without usage counts its reasoning_content, as a stream of it is counted', async () => {
    const reasoning = 'Let me think step by step about the question and weigh each option carefully. '.repeat(30);
    upstream.enqueue({ json: { id: 'c5', object: 'chat.completion', created: 1, model: 'deepseek-reasoner', choices: [{ index: 0, message: { role: 'assistant', content: 'Yes.', reasoning_content: reasoning }, finish_reason: 'stop' }] } });
    await sdk.chat.completions.create({ model: 'deepseek-reasoner', messages: [{ role: 'user', content: 'hi' }] });
    const row = await lastLog();
    expect({ source: row.usage_source, output: Number(row.output_tokens) }).toEqual({ source: 'local', output: countTokens('Yes.') + countTokens(reasoning) });
  });

  it('a whole answer without usage counts OpenRouter\'s `reasoning` field', async () => {
    const reasoning = 'Weighing the two readings of the question before answering it. '.repeat(30);
    upstream.enqueue({ json: { id: 'c5b', object: 'chat.completion', created: 1, model: 'deepseek-reasoner', choices: [{ index: 0, message: { role: 'assistant', content: 'No.', reasoning }, finish_reason: 'stop' }] } });
    await sdk.chat.completions.create({ model: 'deepseek-reasoner', messages: [{ role: 'user', content: 'hi' }] });
    const row = await lastLog();
    // The texts are counted as one (a token may join them at the seam).
    expect(row.usage_source).toBe('local');
    expect(Number(row.output_tokens)).toBeGreaterThanOrEqual(countTokens(reasoning));
    expect(Number(row.output_tokens)).toBeLessThanOrEqual(countTokens('No.') + countTokens(reasoning));
  });

  it('a stream of delta.reasoning (OpenRouter, vLLM) cut before its usage counts the reasoning text; one carrying both fields counts it once', async () => {
    const reasoning = 'Considering the options one by one and checking each assumption twice. '.repeat(20);
    const base = chunkBase('deepseek-reasoner');
    const streamOf = (delta: (piece: string) => Record<string, unknown>) => [
      { data: { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] } },
      ...reasoning.match(/.{1,40}/g)!.map((piece) => ({ data: { ...base, choices: [{ index: 0, delta: delta(piece), finish_reason: null }] } })),
    ];
    const expected = countTokens(reasoning);
    upstream.enqueue({ sse: streamOf((piece) => ({ reasoning: piece })), ending: 'reset' });
    await drain(await sdk.chat.completions.create({ model: 'deepseek-reasoner', messages: [{ role: 'user', content: 'hi' }], stream: true }));
    const row = await lastLog();
    expect({ source: row.usage_source, output: Number(row.output_tokens) }).toEqual({ source: 'local', output: expected });
    upstream.enqueue({ sse: streamOf((piece) => ({ reasoning_content: piece, reasoning: piece })), ending: 'reset' });
    await drain(await sdk.chat.completions.create({ model: 'deepseek-reasoner', messages: [{ role: 'user', content: 'hi' }], stream: true }));
    expect(Number((await lastLog()).output_tokens)).toBe(expected);
  });

  it('a refusal without usage is counted, whole and streamed (cut before its usage)', async () => {
    const refusal = 'I am sorry, but I cannot help with that request as it was phrased. '.repeat(10);
    upstream.enqueue({ json: { id: 'c10', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: null, refusal }, finish_reason: 'stop' }] } });
    await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(Number((await lastLog()).output_tokens)).toBe(countTokens(refusal));
    const base = chunkBase('gpt-4o');
    const sse = [
      { data: { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: null, refusal: '' }, finish_reason: null }] } },
      ...refusal.match(/.{1,40}/g)!.map((piece) => ({ data: { ...base, choices: [{ index: 0, delta: { refusal: piece }, finish_reason: null }] } })),
    ];
    upstream.enqueue({ sse, ending: 'reset' });
    await drain(await sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: true }));
    const row = await lastLog();
    expect({ source: row.usage_source, output: Number(row.output_tokens) }).toEqual({ source: 'local', output: countTokens(refusal) });
  });
});

describe('response_format.json_schema in the prompt estimate', () => {
  /** A JSON schema of about `properties` × 10 tokens. */
  const schemaOf = (properties: number) => ({
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: properties }, (_, index) => [`field_number_${index}`, { type: 'string', description: `the value of field ${index}` }])),
    additionalProperties: false,
  });
  const ask = (key: string, schema: Record<string, unknown>) =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', max_tokens: 16, messages: [{ role: 'user', content: 'Fill it in.' }], response_format: { type: 'json_schema', json_schema: { name: 'form', strict: true, schema } } }),
    });

  it('a schema the balance cannot pay for is refused 402 before any upstream call; a small one is served', async () => {
    const before = upstream.requests.length;
    upstream.enqueue({ json: { id: 'c11', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: '{}' }, finish_reason: 'stop' }], usage: { prompt_tokens: 50, completion_tokens: 1, total_tokens: 51 } } });
    const small = await ask(smallKey, schemaOf(2));
    expect(small.status).toBe(200);
    await small.text();
    const large = schemaOf(4_000);
    expect(countTokens(JSON.stringify(large)), 'the schema alone costs more than the key holds').toBeGreaterThan(24_000);
    const refused = await ask(smallKey, large);
    expect({ status: refused.status, body: await refused.text() }).toMatchObject({ status: 402 });
    expect(upstream.requests.length - before).toBe(1);
  });

  it('an answer without usage is billed the schema in its prompt', async () => {
    const schema = schemaOf(300);
    upstream.enqueue({ json: { id: 'c12', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: '{}' }, finish_reason: 'stop' }] } });
    const answer = await ask(clientKey, schema);
    expect(answer.status).toBe(200);
    await answer.text();
    const row = await lastLog();
    expect(row.usage_source).toBe('local');
    expect(Number(row.input_tokens)).toBeGreaterThanOrEqual(countTokens(JSON.stringify(schema)));
  });

  it('legacy `functions` definitions are in the prompt too', async () => {
    const functions = [{ name: 'fill_form', description: 'Fills the form.', parameters: schemaOf(300) }];
    upstream.enqueue({ json: { id: 'c13', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] } });
    await sdk.chat.completions.create({ model: 'gpt-4o', max_tokens: 16, messages: [{ role: 'user', content: 'Fill it in.' }], functions });
    const row = await lastLog();
    expect(row.usage_source).toBe('local');
    expect(Number(row.input_tokens)).toBeGreaterThanOrEqual(countTokens(JSON.stringify(functions)));
  });

  it('a Responses client\'s `text.format` schema, converted for the Chat channel, is in the prompt too', async () => {
    const schema = schemaOf(300);
    upstream.enqueue({ json: { id: 'c14', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: '{}' }, finish_reason: 'stop' }] } });
    const responses = new OpenAI({ apiKey: clientKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await responses.responses.create({ model: 'gpt-4o', max_output_tokens: 16, input: 'Fill it in.', text: { format: { type: 'json_schema', name: 'form', strict: true, schema } } });
    const row = await lastLog();
    expect(upstream.requests.at(-1)?.path).toBe('/v1/chat/completions');
    expect(row.usage_source).toBe('local');
    expect(Number(row.input_tokens)).toBeGreaterThanOrEqual(countTokens(JSON.stringify(schema)));
  });
});
