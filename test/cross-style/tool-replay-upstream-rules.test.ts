/**
 * Follow-up turns that reach an upstream with rules of its own (from the tool-call audit): DeepSeek wants its
 * reasoning_content back on tool-call turns; OpenAI and Anthropic refuse Gemini's dotted function names.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatStream, chatWhole, anthropicWhole, replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const key = `sk-${'t'.repeat(48)}`;
const models = { deepseek: 'deepseek-v4-pro', chat: 'gpt-4o-mini', responses: 'gpt-5-mini', anthropic: 'claude-sonnet-4-5' } as const;

let upstream: ScriptedUpstream;
let gateway: TestGateway;
let anthropic: Anthropic;
let gemini: GoogleGenAI;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  const channel = (name: string, type: 'openai' | 'anthropic', list: string[], settings: Record<string, unknown> = {}) => ({
    name, type, base_url: upstream.url, key: `up-${name}`, models: list, groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings,
  });
  gateway = await startTestGateway({
    config: {
      prices: Object.fromEntries(Object.values(models).map((m) => [m, { input: 1, output: 2 }])),
      channels: [channel('deepseek', 'openai', [models.deepseek, models.chat]), channel('responses', 'openai', [models.responses], { api: 'responses' }), channel('anthropic', 'anthropic', [models.anthropic])],
      tokens: [{ name: 'caller', key, unlimited_quota: true, expires_at: 0, enabled: true }],
    },
  });
  anthropic = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
  gemini = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway.url } });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

const weather = { name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object' as const, properties: { location: { type: 'string' } }, required: ['location'] } };

describe('DeepSeek thinking mode (a Chat Completions upstream) needs reasoning_content back on assistant turns that called tools', () => {
  // api-docs.deepseek.com/guides/thinking_mode#tool-calls: "For turns that do perform tool calls, the reasoning_content must be
  // fully passed back to the API in all subsequent requests … the API will return a 400 error." (the comment on
  // FormatOpenaiChatMessagesOptions says the same).
  it.each([false, true])('anthropic client (stream=%s) replays its thinking + tool_use turn → deepseek: the assistant message keeps reasoning_content', async (stream) => {
    const answer = { thinking: { text: 'User wants Paris weather; call the tool.', signature: '' }, tools: [{ id: 'call_ds1', name: 'get_weather', args: '{"location":"Paris"}' }], stop: 'tool' as const, usage: { input: 20, output: 15 } };
    upstream.clearQueue();
    upstream.enqueue(stream ? chatStream(answer) : chatWhole(answer));
    const first = { model: models.deepseek, max_tokens: 500, tools: [weather], messages: [{ role: 'user' as const, content: 'Weather in Paris?' }] };
    const message = stream ? await anthropic.messages.stream(first).finalMessage() : await anthropic.messages.create(first);
    const thinking = message.content.find((b) => b.type === 'thinking');
    expect(thinking).toBeDefined();
    const toolUse = message.content.find((b) => b.type === 'tool_use')!;
    upstream.enqueue(chatWhole({ text: 'Sunny.', stop: 'stop', usage: { input: 40, output: 2 } }));
    await anthropic.messages.create({
      ...first,
      messages: [...first.messages, { role: 'assistant', content: message.content as any }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: (toolUse as any).id, content: 'Sunny, 21 C' }] }],
    });
    const sent = upstream.requests.at(-1)!.body;
    const assistant = sent.messages.find((m: any) => m.role === 'assistant');
    expect(assistant.tool_calls.map((c: any) => c.id)).toEqual(['call_ds1']);
    expect(assistant.reasoning_content).toBe('User wants Paris weather; call the tool.');
  });
});

describe('Gemini function names that other vendors refuse', () => {
  // Gemini allows dots and colons in function names (@google/genai FunctionDeclaration.name: "a-z, A-Z, 0-9, or contain
  // underscores, dots, colons and dashes"); OpenAI ("a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length
  // of 64", openai-openapi.yaml FunctionObject.name) and Anthropic (tool name ^[a-zA-Z0-9_-]{1,64}$) do not.
  const styles: [WireStyle, string][] = [['openai-chat', models.chat], ['openai-responses', models.responses], ['anthropic', models.anthropic]];
  it.each(styles)('gemini client declares "weather.get" (MCP-style) → %s: the declared name is one the vendor accepts, and the call comes back as "weather.get"', async (up, model) => {
    upstream.clearQueue();
    // The upstream calls the tool under the name it was given.
    upstream.enqueue((request: any) => {
      const body = request.body;
      const name = up === 'openai-chat' ? body.tools[0].function.name : body.tools[0].name;
      return replyFor(up, { tools: [{ id: 'call_n1', name, args: '{"city":"Oslo"}' }], stop: 'tool', usage: { input: 5, output: 5 } }, body.stream === true);
    });
    const response = await gemini.models.generateContent({
      model,
      contents: [{ role: 'user', parts: [{ text: 'Weather in Oslo?' }] }],
      config: { tools: [{ functionDeclarations: [{ name: 'weather.get', description: 'Weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }] },
    });
    const sent = upstream.requests.at(-1)!.body;
    const declared = up === 'openai-chat' ? sent.tools[0].function.name : sent.tools[0].name;
    expect(declared).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(response.functionCalls?.map((c) => c.name)).toEqual(['weather.get']);
  });
});

describe('text before and after a tool call in one Anthropic turn', () => {
  it.each([false, true])('gemini client (stream=%s) ← anthropic [text, tool_use, text]: every text and the call arrive', async (stream) => {
    upstream.clearQueue();
    const content = [
      { type: 'text', text: 'Let me check. ' },
      { type: 'tool_use', id: 'toolu_T1', name: 'get_weather', input: { location: 'Oslo' } },
      { type: 'text', text: 'Calling now.' },
    ];
    if (!stream) {
      const whole = anthropicWhole({ stop: 'tool', usage: { input: 5, output: 5 } });
      (whole.json as any).content = content;
      upstream.enqueue(whole);
    } else {
      const ev = (data: any) => ({ event: data.type, data });
      upstream.enqueue({
        sse: [
          ev({ type: 'message_start', message: { id: 'msg_t', type: 'message', role: 'assistant', model: 'claude', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } }),
          ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
          ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me check. ' } }),
          ev({ type: 'content_block_stop', index: 0 }),
          ev({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_T1', name: 'get_weather', input: {} } }),
          ev({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"location":"Oslo"}' } }),
          ev({ type: 'content_block_stop', index: 1 }),
          ev({ type: 'content_block_start', index: 2, content_block: { type: 'text', text: '' } }),
          ev({ type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Calling now.' } }),
          ev({ type: 'content_block_stop', index: 2 }),
          ev({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 5 } }),
          ev({ type: 'message_stop' }),
        ],
      });
    }
    const params = { model: models.anthropic, contents: [{ role: 'user', parts: [{ text: 'Weather?' }] }], config: { tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weather.input_schema }] }] } };
    const parts: any[] = [];
    if (stream) for await (const chunk of await gemini.models.generateContentStream(params)) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    else parts.push(...((await gemini.models.generateContent(params)).candidates?.[0]?.content?.parts ?? []));
    expect(parts.filter((p) => p.text !== undefined).map((p) => p.text).join('')).toBe('Let me check. Calling now.');
    expect(parts.filter((p) => p.functionCall).map((p) => p.functionCall)).toEqual([{ id: 'toolu_T1', name: 'get_weather', args: { location: 'Oslo' } }]);
  });
});
