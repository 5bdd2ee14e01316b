/**
 * `tools: []` sent by a client whose API takes it (Anthropic, Gemini; Chat and Responses refuse it
 * themselves), converted to a channel of another style: the upstream must not be sent an empty `tools`, nor
 * a tool choice with no tools (Chat refuses one, and a forced choice with no tools cannot be met). The fakes
 * record what each upstream received; the clients are the official SDKs. A same-style channel is passed the
 * client's body as sent.
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

  it('a Claude channel is passed the client body as sent (tools: [] and all)', async () => {
    const request = await received('claude', () => client().messages.create({ model: models.claude, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], tools: [], tool_choice: { type: 'auto' } }));
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
});
