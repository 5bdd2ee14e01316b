import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { models, startCrossStyleFixture, type CrossStyleFixture, type UpstreamKind } from './cross-style-setup.js';

const kinds: UpstreamKind[] = ['openai', 'anthropic', 'gemini'];
const weatherTool = { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } };

describe('every text style in, every upstream out (official SDKs, real gateway, fake upstreams)', () => {
  let fixture: CrossStyleFixture;

  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  async function expectBilledFromUpstream(kind: UpstreamKind) {
    const row = await fixture.lastLog();
    expect(row).toMatchObject({ model: models[kind], status: 200, usage_source: 'upstream', input_tokens: 17 });
    expect(row.output_tokens).toBeGreaterThan(0);
    expect(row.quota).toBeGreaterThan(0);
  }

  describe.each(kinds)('to a %s channel', (kind) => {
    const model = models[kind];

    it('@anthropic-ai/sdk messages.create', async () => {
      const message = await fixture.anthropic.messages.create({ model, max_tokens: 256, system: 'Be brief.', messages: [{ role: 'user', content: 'Say hello' }] });
      expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hello from the fake upstream!' });
      expect(message.stop_reason).toBe('end_turn');
      expect(message.usage.input_tokens).toBeGreaterThan(0);
      await expectBilledFromUpstream(kind);
    });

    it('@anthropic-ai/sdk messages.stream', async () => {
      const final = await fixture.anthropic.messages.stream({ model, max_tokens: 256, messages: [{ role: 'user', content: 'Say hello' }] }).finalMessage();
      expect(final.content.map((block) => (block.type === 'text' ? block.text : '')).join('')).toBe('Hello from the fake upstream!');
      await expectBilledFromUpstream(kind);
    });

    it('@anthropic-ai/sdk tool use round trip', async () => {
      const first = await fixture.anthropic.messages.stream({ model, max_tokens: 256, tools: [{ name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters as never }], messages: [{ role: 'user', content: 'Weather in Paris?' }] }).finalMessage();
      const toolUse = first.content.find((block) => block.type === 'tool_use');
      expect(toolUse).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { location: 'Paris' } });
      expect(first.stop_reason).toBe('tool_use');
      const second = await fixture.anthropic.messages.create({
        model,
        max_tokens: 256,
        tools: [{ name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters as never }],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: first.content.filter((block) => block.type === 'tool_use') as never },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: (toolUse as { id: string }).id, content: 'Sunny, 21 °C' }] },
        ],
      });
      expect(second.content[0]).toMatchObject({ type: 'text' });
    });

    it('@google/genai generateContent and generateContentStream', async () => {
      const response = await fixture.gemini.models.generateContent({ model, contents: 'Say hello', config: { systemInstruction: 'Be brief.' } });
      expect(response.text).toBe('Hello from the fake upstream!');
      expect(response.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
      await expectBilledFromUpstream(kind);
      let text = '';
      for await (const chunk of await fixture.gemini.models.generateContentStream({ model, contents: 'Say hello' })) text += chunk.text ?? '';
      expect(text).toBe('Hello from the fake upstream!');
      await expectBilledFromUpstream(kind);
    });

    it('@google/genai function call', async () => {
      const response = await fixture.gemini.models.generateContent({ model, contents: 'Weather in Paris?', config: { tools: [{ functionDeclarations: [{ name: weatherTool.name, description: weatherTool.description, parametersJsonSchema: weatherTool.parameters }] }] } });
      expect(response.functionCalls?.[0]).toMatchObject({ name: 'get_weather', args: { location: 'Paris' } });
    });

    it('openai chat.completions, stream and not, with tools', async () => {
      const completion = await fixture.openai.chat.completions.create({ model, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello' }] });
      expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream!');
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      await expectBilledFromUpstream(kind);
      let text = '';
      for await (const chunk of await fixture.openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hello' }], stream: true })) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('Hello from the fake upstream!');
      const final = await fixture.openai.chat.completions.stream({ model, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [{ type: 'function', function: weatherTool }] }).finalChatCompletion();
      const call = final.choices[0]?.message.tool_calls?.[0];
      expect(call?.type === 'function' && call.function.name).toBe('get_weather');
      expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ location: 'Paris' });
      expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    });
  });

  it('passes the same style through untouched and sends the channel key upstream', async () => {
    await fixture.anthropic.messages.create({ model: models.anthropic, max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }] });
    const received = fixture.anthropicUpstream.requests.at(-1)!;
    expect(received.headers['x-api-key']).toBe('sk-ant-upstream');
    expect(received.headers['anthropic-version']).toBeDefined();
    expect(received.body).toEqual({ model: models.anthropic, max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }] });
  });

  it('renders an upstream error in the client style even when it came from another style', async () => {
    fixture.openaiUpstream.enqueueFault({ kind: 'status', status: 400, body: { error: { message: 'Bad thing', type: 'invalid_request_error', param: null, code: null } } });
    const error = await fixture.anthropic.messages.create({ model: models.openai, max_tokens: 64, messages: [{ role: 'user', content: 'x' }] }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error' } } });
    expect(String((error as { error: { error: { message: string } } }).error.error.message)).toContain('Bad thing');
  });
});

describe('Anthropic upstream max_tokens default', () => {
  it('fills max_tokens from the channel per-model setting when a converted request has none', async () => {
    const fixture = await startCrossStyleFixture();
    try {
      const channel = fixture.gateway.gateway.services.catalog.snapshot.channels.find((candidate) => candidate.type === 'anthropic')!;
      await fixture.gateway.gateway.services.repositories.channels.update(channel.id, { settings: { max_tokens: { [models.anthropic]: 1234 } } }, Date.now());
      await fixture.gateway.gateway.services.catalog.changed();
      await fixture.openai.chat.completions.create({ model: models.anthropic, messages: [{ role: 'user', content: 'hi' }] });
      expect(fixture.anthropicUpstream.requests.at(-1)!.body.max_tokens).toBe(1234);
      await fixture.openai.chat.completions.create({ model: models.anthropic, messages: [{ role: 'user', content: 'hi' }], max_tokens: 77 });
      expect(fixture.anthropicUpstream.requests.at(-1)!.body.max_tokens).toBe(77);
    } finally {
      await fixture.close();
    }
  });
});

describe('lossy conversion', () => {
  it('records what could not be carried across as warnings in the log row', async () => {
    const fixture = await startCrossStyleFixture();
    try {
      await fixture.openai.chat.completions.create({ model: models.anthropic, messages: [{ role: 'user', content: 'hi' }], seed: 42, presence_penalty: 0.5 });
      const row = await fixture.lastLog();
      expect(row.warnings.join('\n')).toMatch(/seed/i);
      expect(fixture.anthropicUpstream.requests.at(-1)!.body).not.toHaveProperty('seed');
      await fixture.anthropic.messages.create({ model: models.anthropic, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
      expect((await fixture.lastLog()).warnings).toEqual([]);
    } finally {
      await fixture.close();
    }
  });
});
