import { zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { expectedCharge, modelOf, startBillingFixture, styles, type BillingFixture } from '../billing-edges/billing-fixture.js';
import { booked } from './responses-support.js';

/**
 * The openai SDK's Responses helpers through the gateway, for every upstream style:
 * `responses.stream(...)` with `.on('response.output_text.delta')` and `finalResponse()`,
 * `responses.parse()` / `responses.stream()` with a zod text format; and what a whole answer looks like
 * (ids, created_at, model echo, output items, usage details).
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const Weather = z.object({ city: z.string(), celsius: z.number() });
const weatherJson = '{"city":"Paris","celsius":18}';

describe('responses.stream(): delta events and finalResponse()', () => {
  it.each(styles)('%s upstream', async (up) => {
    fixture.primary[up].enqueue(replyFor(up, { text: ['Hel', 'lo ', 'there'], usage: { input: 12, cacheRead: 4, output: 9, reasoning: up === 'anthropic' ? 0 : 2 } }, true));
    const deltas: string[] = [];
    const snapshots: string[] = [];
    const { result, row } = await booked(fixture, async () => {
      const runner = fixture.sdk.openai.responses.stream({ model: modelOf[up], input: 'Say hello' });
      runner.on('response.output_text.delta', (event) => {
        deltas.push(event.delta);
        snapshots.push(event.snapshot);
      });
      return runner.finalResponse();
    });
    expect(deltas.join('')).toBe('Hello there');
    expect(snapshots.at(-1)).toBe('Hello there');
    expect(result!.output_text).toBe('Hello there');
    expect(result!.status).toBe('completed');
    expect(result!.usage).toMatchObject({ input_tokens: 12, input_tokens_details: { cached_tokens: 4 }, output_tokens: 9 });
    expect(row.quota).toBe(expectedCharge({ input: 12, cacheRead: 4, output: 9 }));
  });
});

describe('responses.parse() with a zod text format', () => {
  // From the schema audit: a tuple's members are rewritten too (Anthropic refuses the bounds inside them).
  it('a z.tuple reaches an Anthropic upstream with the bounds inside it moved into descriptions', async () => {
    const Scored = z.object({ pair: z.tuple([z.object({ score: z.number().int().min(1).max(10) }), z.string()]) });
    const json = '{"pair":[{"score":3},"ok"]}';
    fixture.primary.anthropic.enqueue(replyFor('anthropic', { text: json, usage: { input: 20, output: 8 } }, false));
    const parsed = await fixture.sdk.openai.responses.parse({ model: modelOf.anthropic, input: 'Score it', text: { format: zodTextFormat(Scored, 'scored') } });
    expect(parsed.output_parsed).toEqual(JSON.parse(json));
    const schema = (fixture.primary.anthropic.requests.at(-1)!.body as any).output_config.format.schema;
    expect(JSON.stringify(schema)).not.toMatch(/"(minimum|maximum)":/);
    expect(JSON.stringify(schema)).toContain('maximum: 10');
  });

  it.each(styles.flatMap((up) => [false, true].map((stream) => ({ up, stream }))))('$up upstream (stream=$stream)', async ({ up, stream }) => {
    fixture.primary[up].enqueue(replyFor(up, { text: ['{"city":', '"Paris",', '"celsius":18}'], usage: { input: 30, output: 10 } }, stream));
    const params = { model: modelOf[up], input: 'Weather in Paris as JSON', text: { format: zodTextFormat(Weather, 'weather') } };
    const parsed = stream ? await fixture.sdk.openai.responses.stream(params).finalResponse() : await fixture.sdk.openai.responses.parse(params);
    expect(parsed.output_text).toBe(weatherJson);
    expect(parsed.output_parsed).toEqual({ city: 'Paris', celsius: 18 });
    const sentBody = fixture.primary[up].requests.at(-1)!.body as any;
    const schema = zodTextFormat(Weather, 'weather').schema;
    if (up === 'openai-chat') expect(sentBody.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'weather', strict: true, schema } });
    if (up === 'openai-responses') expect(sentBody.text.format).toMatchObject({ type: 'json_schema', name: 'weather', strict: true, schema });
    // Gemini and Anthropic read no $schema (docs/behaviour.md; src/convert/gemini/format-gemini-json-schema.ts,
    // src/convert/anthropic-messages/format-anthropic-output-schema.ts); the zod schema is otherwise in the subset both take.
    const { $schema: _dialect, ...geminiSchema } = schema as Record<string, unknown>;
    if (up === 'anthropic') expect(sentBody.output_config).toEqual({ format: { type: 'json_schema', schema: geminiSchema } });
    if (up === 'gemini') expect(sentBody.generationConfig).toMatchObject({ responseMimeType: 'application/json', responseJsonSchema: geminiSchema });
  });

  it.each(['openai-chat', 'anthropic', 'gemini'] as WireStyle[])('function tools with parse(): a function_call from %s is parsed into parsed_arguments', async (up) => {
    fixture.primary[up].enqueue(replyFor(up, { tools: [{ id: 'call_w1', name: 'get_weather', args: '{"city":"Paris","celsius":18}' }], stop: 'tool', usage: { input: 30, output: 10 } }, false));
    const { zodResponsesFunction } = await import('openai/helpers/zod');
    const parsed = await fixture.sdk.openai.responses.parse({ model: modelOf[up], input: 'Weather?', tools: [zodResponsesFunction({ name: 'get_weather', parameters: Weather })] });
    const call = parsed.output.find((item) => item.type === 'function_call') as any;
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: weatherJson });
    expect(call.parsed_arguments).toEqual({ city: 'Paris', celsius: 18 });
    expect(call.call_id).toEqual(up === 'gemini' ? expect.any(String) : 'call_w1');
  });
});

describe('whole answers from each upstream style', () => {
  it.each(['openai-chat', 'anthropic', 'gemini'] as WireStyle[])('%s upstream: resp_ id, created_at, the client model, message then function_call items, usage details', async (up) => {
    fixture.primary[up].enqueue(replyFor(up, { text: 'Let me check.', tools: [{ id: 'call_a', name: 'get_weather', args: '{"city":"Paris"}' }], stop: 'tool', usage: { input: 50, cacheRead: 20, output: 15, reasoning: up === 'anthropic' ? 0 : 5 } }, false));
    const before = Math.floor(Date.now() / 1000) - 5;
    const response = await fixture.sdk.openai.responses.create({ model: modelOf[up], input: 'Weather?', tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }] });
    expect(response.id).toMatch(/^resp_/);
    expect(response.object).toBe('response');
    expect(response.model).toBe(modelOf[up]);
    expect(typeof response.created_at).toBe('number');
    if (up !== 'openai-chat') expect(response.created_at).toBeGreaterThanOrEqual(before);
    expect(response.status).toBe('completed');
    expect(response.output.map((item) => item.type)).toEqual(['message', 'function_call']);
    expect(response.output_text).toBe('Let me check.');
    expect(response.output[1]).toMatchObject({ type: 'function_call', call_id: up === 'gemini' ? expect.any(String) : 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' });
    expect(response.usage).toMatchObject({ input_tokens: 50, input_tokens_details: { cached_tokens: 20 }, output_tokens: 15, total_tokens: 65 });
    if (up !== 'anthropic') expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(5);
  });
});
