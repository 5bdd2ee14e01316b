import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropicUpstream, type FakeAnthropicUpstream } from '../fakes/fake-anthropic-upstream.js';
import { startFakeGeminiUpstream, type FakeGeminiUpstream } from '../fakes/fake-gemini-upstream.js';
import { recordedResponsesText, recordedResponsesUsage, recordedStreamUsage, startFakeOpenaiResponsesUpstream, type FakeOpenaiResponsesUpstream } from '../fakes/fake-openai-responses-upstream.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const key = `sk-${'r'.repeat(48)}`;
const models = { chat: 'gpt-4o-mini', responses: 'gpt-5-mini', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-flash' };

describe('POST /v1/responses and /v1/responses/compact (official openai SDK)', () => {
  let gateway: TestGateway;
  let chatUpstream: FakeOpenaiUpstream;
  let responsesUpstream: FakeOpenaiResponsesUpstream;
  let anthropicUpstream: FakeAnthropicUpstream;
  let geminiUpstream: FakeGeminiUpstream;
  let client: OpenAI;

  beforeAll(async () => {
    chatUpstream = await startFakeOpenaiUpstream();
    responsesUpstream = await startFakeOpenaiResponsesUpstream('sk-responses-upstream');
    anthropicUpstream = await startFakeAnthropicUpstream();
    geminiUpstream = await startFakeGeminiUpstream();
    const channel = (name: string, type: 'openai' | 'anthropic' | 'gemini', url: string, models: string[], settings: Record<string, unknown> = {}) => ({
      name, type, base_url: url, key: name === 'responses' ? 'sk-responses-upstream' : 'sk-x', models, groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings,
    });
    gateway = await startTestGateway({
      config: {
        prices: { ...Object.fromEntries(Object.values(models).map((model) => [model, { input: 1, output: 2 }])), 'gpt-5-mini-openai-compact': { input: 1, output: 2 } },
        channels: [
          channel('chat', 'openai', chatUpstream.url, [models.chat]),
          channel('responses', 'openai', responsesUpstream.url, [models.responses, 'gpt-5-mini-openai-compact'], { api: 'responses' }),
          channel('anthropic', 'anthropic', anthropicUpstream.url, [models.anthropic]),
          channel('gemini', 'gemini', geminiUpstream.url, [models.gemini]),
        ],
        tokens: [{ name: 'responses', key, unlimited_quota: true, expires_at: 0, enabled: true }],
      },
    });
    client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway.close();
    await Promise.all([chatUpstream.close(), responsesUpstream.close(), anthropicUpstream.close(), geminiUpstream.close()]);
  });

  const lastLog = async () => {
    await gateway.settled();
    return (await gateway.gateway.services.repositories.logs.list({}, { page: 1, pageSize: 1 })).items[0]!;
  };

  it.each([models.chat, models.anthropic, models.gemini])('converts a Responses request for a %s channel, stream and not', async (model) => {
    const response = await client.responses.create({ model, instructions: 'Be brief.', input: 'Say hello' });
    expect(response.output_text).toBe('Hello from the fake upstream!');
    expect(response.status).toBe('completed');
    expect(response.usage?.input_tokens).toBe(17);
    const stream = client.responses.stream({ model, input: 'Say hello' });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe('Hello from the fake upstream!');
    expect((await stream.finalResponse()).output_text).toBe('Hello from the fake upstream!');
    expect(await lastLog()).toMatchObject({ model, usage_source: 'upstream', input_tokens: 17 });
  });

  it('converts Responses function tools and returns function_call items', async () => {
    const response = await client.responses.create({
      model: models.anthropic,
      input: 'Weather in Paris?',
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } }, strict: false }],
    });
    const call = response.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather' });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ location: 'Paris' });
  });

  it('passes Responses through to a channel that speaks Responses — with the output limit its reservation covers when it names none — and bills its usage', async () => {
    const response = await client.responses.create({ model: models.responses, input: 'Compute (12 + 7) × 3 × 10', reasoning: { effort: 'low' } });
    expect(response.output_text).toBe(recordedResponsesText);
    expect(responsesUpstream.requests.at(-1)!.body).toEqual({ model: models.responses, input: 'Compute (12 + 7) × 3 × 10', reasoning: { effort: 'low' }, max_output_tokens: 4096 });
    expect(await lastLog()).toMatchObject({ model: models.responses, usage_source: 'upstream', input_tokens: recordedResponsesUsage.input_tokens, output_tokens: recordedResponsesUsage.output_tokens, reasoning_tokens: recordedResponsesUsage.reasoning_tokens });
    let text = '';
    for await (const event of await client.responses.create({ model: models.responses, input: 'again', stream: true })) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text.length).toBeGreaterThan(0);
    expect(await lastLog()).toMatchObject({ model: models.responses, usage_source: 'upstream', input_tokens: recordedStreamUsage().input_tokens, output_tokens: recordedStreamUsage().output_tokens });
  });

  it('relays compaction under the -openai-compact model name and sends the plain name upstream', async () => {
    const compacted = await client.post<{ object: string; output: { type: string }[] }>('/responses/compact', { body: { model: models.responses, input: [{ role: 'user', content: 'earlier question' }] } });
    expect(compacted.object).toBe('response.compaction');
    expect(compacted.output.at(-1)?.type).toBe('compaction');
    expect(responsesUpstream.requests.at(-1)).toMatchObject({ path: '/v1/responses/compact', body: { model: models.responses } });
    expect(await lastLog()).toMatchObject({ model: 'gpt-5-mini-openai-compact', upstream_model: models.responses, input_tokens: 1200, output_tokens: 300, quota: 900 }); // (1200 × 1 + 300 × 2) / 1M × 500000
  });
});
