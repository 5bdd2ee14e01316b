/**
 * `tools: []` sent by a client whose API takes it (Anthropic, Gemini, Responses; Chat refuses it itself),
 * converted to a channel of another style: the upstream must not be sent an empty `tools`, nor a tool
 * choice with no tools (Chat and Anthropic refuse one, Responses a forced one, Gemini a calling config
 * beside no function). The fakes refuse what their vendors refuse and record what each upstream received;
 * the clients are the official SDKs. A same-style channel is passed the client's body as sent, and its
 * vendor's refusal reaches the client.
 */
import Anthropic from '@anthropic-ai/sdk';
import { FunctionCallingConfigMode, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropicUpstream, type FakeAnthropicUpstream } from '../fakes/fake-anthropic-upstream.js';
import { startFakeGeminiUpstream, type FakeGeminiUpstream } from '../fakes/fake-gemini-upstream.js';
import { startFakeOpenaiResponsesUpstream, type FakeOpenaiResponsesUpstream } from '../fakes/fake-openai-responses-upstream.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from '../fakes/fake-openai-upstream.js';
import type { RecordedRequest } from '../fakes/fake-server.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';

const key = `sk-${'t'.repeat(48)}`;
const models = { chat: 'gpt-4o-mini', responses: 'gpt-5-mini', claude: 'claude-sonnet-5-5', gemini: 'gemini-2.5-flash' } as const;
type Target = keyof typeof models;

let gateway: TestGateway;
let upstreams: { chat: FakeOpenaiUpstream; responses: FakeOpenaiResponsesUpstream; claude: FakeAnthropicUpstream; gemini: FakeGeminiUpstream };

beforeAll(async () => {
  upstreams = {
    chat: await startFakeOpenaiUpstream(),
    responses: await startFakeOpenaiResponsesUpstream('sk-responses-upstream'),
    claude: await startFakeAnthropicUpstream(),
    gemini: await startFakeGeminiUpstream(),
  };
  const channel = (name: Target, type: 'openai' | 'anthropic' | 'gemini', settings: Record<string, unknown> = {}) => ({
    name, type, base_url: upstreams[name].url, key: name === 'responses' ? 'sk-responses-upstream' : 'sk-x', models: [models[name]], groups: ['default'], priority: 0, weight: 1, model_mapping: {}, enabled: true, auto_disable: false, settings,
  });
  gateway = await startTestGateway({
    config: {
      prices: Object.fromEntries(Object.values(models).map((model) => [model, { input: 1, output: 2 }])),
      channels: [channel('chat', 'openai'), channel('responses', 'openai', { api: 'responses' }), channel('claude', 'anthropic'), channel('gemini', 'gemini')],
      tokens: [{ name: 'tools', key, unlimited_quota: true, expires_at: 0, enabled: true }],
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all(Object.values(upstreams ?? {}).map((upstream) => upstream.close()));
});

/** Runs `act` and returns the one request the target's upstream received meanwhile. */
async function received(target: Target, act: () => Promise<unknown>): Promise<RecordedRequest> {
  const before = upstreams[target].requests.length;
  await act();
  const sent = upstreams[target].requests.slice(before);
  expect(sent, 'upstream requests').toHaveLength(1);
  return sent[0]!;
}

const toolFields = ['tools', 'tool_choice', 'parallel_tool_calls', 'toolConfig'];
/** What the upstream would refuse beside no tools: the Responses API takes `parallel_tool_calls` alone (Chat does not). */
const sentToolFields = (request: RecordedRequest) => toolFields.filter((field) => field in (request.body as object) && !(field === 'parallel_tool_calls' && request.path.split('?', 1)[0]!.endsWith('/responses')));

describe('an Anthropic client (Anthropic accepts tools: [])', () => {
  const client = () => new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
  const choices = [undefined, { type: 'auto' as const }, { type: 'any' as const }, { type: 'none' as const }, { type: 'auto' as const, disable_parallel_tool_use: true }];
  for (const target of ['chat', 'responses', 'gemini'] as const) {
    for (const toolChoice of choices) {
      it(`tools: [] ${toolChoice === undefined ? '' : `tool_choice ${JSON.stringify(toolChoice)} `}→ ${target}: neither is sent`, async () => {
        const request = await received(target, () =>
          client().messages.create({ model: models[target], max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], tools: [], ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }) }),
        );
        expect(sentToolFields(request)).toEqual([]);
      });
    }
  }

  it("a Claude channel is passed the client body as sent (tools: [] and all), and Anthropic's refusal of the choice reaches the client", async () => {
    const request = await received('claude', () =>
      expect(client().messages.create({ model: models.claude, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], tools: [], tool_choice: { type: 'auto' } })).rejects.toMatchObject({
        status: 400,
        error: { error: { type: 'invalid_request_error', message: 'tool_choice may only be specified while providing tools.' } },
      }),
    );
    expect(request.body).toMatchObject({ tools: [], tool_choice: { type: 'auto' } });
  });
});

describe('a Gemini client (@google/genai)', () => {
  const client = () => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway.url } });
  const configs = [
    { tools: [] },
    { tools: [{ functionDeclarations: [] }] },
    { tools: [], toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } } },
    { tools: [], toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } } },
    { toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.NONE } } },
  ];
  for (const target of ['chat', 'responses', 'claude'] as const) {
    for (const config of configs) {
      it(`${JSON.stringify(config)} → ${target}: no tools, no tool choice`, async () => {
        const request = await received(target, () => client().models.generateContent({ model: models[target], contents: 'hi', config: { maxOutputTokens: 16, ...config } }));
        expect(sentToolFields(request)).toEqual([]);
      });
    }
  }
});

describe('an OpenAI Chat client (the SDK sends tools: [] as given; OpenAI itself refuses it)', () => {
  const client = () => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  for (const target of ['claude', 'gemini', 'responses'] as const) {
    it(`tools: [] tool_choice none → ${target}: neither is sent`, async () => {
      const request = await received(target, () => client().chat.completions.create({ model: models[target], max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], tools: [], tool_choice: 'none' }));
      expect(sentToolFields(request)).toEqual([]);
    });
  }

  it("an OpenAI channel is passed tools: [] as sent, and OpenAI's refusal reaches the client", async () => {
    const request = await received('chat', () =>
      expect(client().chat.completions.create({ model: models.chat, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], tools: [] })).rejects.toMatchObject({ status: 400, code: 'empty_array', param: 'tools' }),
    );
    expect(request.body).toMatchObject({ tools: [] });
  });
});

describe('an OpenAI Responses client (the Responses API takes tools: [], not a forced choice beside it)', () => {
  const client = () => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const choices = [undefined, 'auto', 'none', 'required'] as const;
  for (const target of ['chat', 'claude', 'gemini'] as const) {
    for (const toolChoice of choices) {
      it(`tools: [] ${toolChoice === undefined ? '' : `tool_choice ${toolChoice} `}parallel_tool_calls false → ${target}: no tool field is sent`, async () => {
        const request = await received(target, () =>
          client().responses.create({ model: models[target], max_output_tokens: 16, input: 'hi', tools: [], parallel_tool_calls: false, ...(toolChoice === undefined ? {} : { tool_choice: toolChoice }) }),
        );
        expect(sentToolFields(request)).toEqual([]);
      });
    }
  }
});
