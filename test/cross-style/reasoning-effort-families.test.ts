/**
 * A converted thinking setting (an Anthropic client's `thinking`, as Claude Code sends it) reaches OpenAI
 * models whose efforts are narrower than the o-series', on a Chat channel and on a Responses channel: the
 * effort is one the model takes, else OpenAI refuses the whole request (400 "Unsupported value: 'low' is not
 * supported with the 'gpt-5.2-pro' model. Supported values are: 'medium', 'high', and 'xhigh'."). The fake
 * upstream refuses as OpenAI does and records the body. The Responses channel serves its models under
 * other names (model_mapping), so the rule reads the upstream's name. Sources: openai-effort-for-model.ts,
 * takes-openai-reasoning.ts, chat-effort-beside-function-tools.ts.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type RecordedRequest, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { startTestGateway, type TestGateway } from '../support/start-test-gateway.js';
import { callerKey } from './harness.js';

/** The efforts each model takes (OpenAI's answers; see openai-effort-for-model.ts). */
const effortsTaken: Record<string, string[]> = {
  'gpt-5.2-pro': ['medium', 'high', 'xhigh'],
  'gpt-5.1-chat-latest': ['medium'],
  'gpt-5.4-mini': ['none', 'low', 'medium', 'high', 'xhigh'],
  'codex-mini-latest': ['low', 'medium', 'high'],
  'o4-mini-deep-research': ['medium'],
};

function openaiRefusal(message: string, param: string) {
  return { status: 400, json: { error: { message, type: 'invalid_request_error', param, code: null } } };
}

/** The upstream: its answer, or OpenAI's 400 for an effort the model does not take (or, on Chat, one beside function tools). */
function answersAs(style: 'openai-chat' | 'openai-responses') {
  return (request: RecordedRequest) => {
    const body = request.body as Record<string, any>;
    const param = style === 'openai-chat' ? 'reasoning_effort' : 'reasoning.effort';
    const effort = style === 'openai-chat' ? body.reasoning_effort : body.reasoning?.effort;
    const taken = effortsTaken[body.model];
    if (effort !== undefined && taken !== undefined && !taken.includes(effort)) {
      return openaiRefusal(`Unsupported value: '${effort}' is not supported with the '${body.model}' model. Supported values are: ${taken.map((value) => `'${value}'`).join(', ')}.`, param);
    }
    if (style === 'openai-chat' && body.model === 'gpt-5.4-mini' && Array.isArray(body.tools) && effort !== undefined && effort !== 'none') {
      return openaiRefusal('Function tools with reasoning_effort are not supported for gpt-5.4-mini in /v1/chat/completions. Please use /v1/responses instead.', 'reasoning_effort');
    }
    return replyFor(style, { text: 'Paris.', stop: 'stop', usage: { input: 12, output: 3 } }, body.stream === true);
  };
}

const responsesNames = { 'rs-gpt-5.2-pro': 'gpt-5.2-pro', 'rs-gpt-5.1-chat-latest': 'gpt-5.1-chat-latest' };

describe('a thinking budget converted toward OpenAI models of narrow efforts', () => {
  let upstream: ScriptedUpstream;
  let gateway: TestGateway;
  let anthropic: Anthropic;
  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    const channel = (name: string, models: string[], settings: Record<string, unknown>, modelMapping: Record<string, string> = {}) => ({
      name, type: 'openai' as const, base_url: upstream.url, key: `up-${name}`, models, groups: ['default'], priority: 0, weight: 1, model_mapping: modelMapping, enabled: true, auto_disable: false, settings,
    });
    const chatModels = ['gpt-5.2-pro', 'gpt-5.1-chat-latest', 'gpt-5.4-mini'];
    const responsesModels = [...Object.keys(responsesNames), 'codex-mini-latest', 'o4-mini-deep-research'];
    gateway = await startTestGateway({
      config: {
        prices: Object.fromEntries([...chatModels, ...responsesModels].map((model) => [model, { input: 1, output: 2 }])),
        channels: [channel('chat', chatModels, {}), channel('responses', responsesModels, { api: 'responses' }, responsesNames)],
        tokens: [{ name: 'caller', key: callerKey, unlimited_quota: true, expires_at: 0, enabled: true }],
      },
    });
    anthropic = new Anthropic({ apiKey: callerKey, baseURL: gateway.url, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  const lastBody = () => upstream.requests.at(-1)!.body as Record<string, any>;
  const lastWarnings = async () => {
    await gateway.settled();
    return (await gateway.gateway.services.repositories.logs.list({}, { page: 1, pageSize: 1 })).items[0]!.warnings;
  };
  const question = [{ role: 'user' as const, content: 'Capital of France?' }];
  const ask = async (model: string, style: 'openai-chat' | 'openai-responses', budget: number) => {
    upstream.enqueue(answersAs(style));
    // A large max_tokens needs the SDK's stream (it refuses a long non-streamed call): Claude Code streams too.
    const request = { model, max_tokens: budget + 1024, thinking: { type: 'enabled' as const, budget_tokens: budget }, messages: question };
    const answer = budget < 16000 ? await anthropic.messages.create(request) : await anthropic.messages.stream(request).finalMessage();
    expect(answer.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual(['Paris.']);
    return lastBody();
  };

  it("gpt-5.2-pro on a Chat channel: a budget of 1024 ('low') is sent as 'medium', the least it takes; 31999 as 'high'", async () => {
    expect((await ask('gpt-5.2-pro', 'openai-chat', 1024)).reasoning_effort).toBe('medium');
    expect(await lastWarnings()).toContain("reasoning effort 'low' sent as 'medium': gpt-5.2-pro takes 'medium', 'high', 'xhigh'");
    expect((await ask('gpt-5.2-pro', 'openai-chat', 31999)).reasoning_effort).toBe('high');
  });

  it("gpt-5.2-pro on a Responses channel (mapped from another name): reasoning.effort 'medium' for 1024, 'high' for 31999", async () => {
    const small = await ask('rs-gpt-5.2-pro', 'openai-responses', 1024);
    expect(small.model).toBe('gpt-5.2-pro');
    expect(small.reasoning).toMatchObject({ effort: 'medium' });
    expect((await ask('rs-gpt-5.2-pro', 'openai-responses', 31999)).reasoning).toMatchObject({ effort: 'high' });
  });

  it("gpt-5.1-chat-latest on a Chat channel: 'medium' for a small budget and a large one, the only effort it takes", async () => {
    expect((await ask('gpt-5.1-chat-latest', 'openai-chat', 1024)).reasoning_effort).toBe('medium');
    expect((await ask('gpt-5.1-chat-latest', 'openai-chat', 31999)).reasoning_effort).toBe('medium');
    expect(await lastWarnings()).toContain("reasoning effort 'high' sent as 'medium': gpt-5.1-chat-latest takes 'medium'");
  });

  it("gpt-5.1-chat-latest on a Responses channel: reasoning.effort 'medium' for both budgets", async () => {
    expect((await ask('rs-gpt-5.1-chat-latest', 'openai-responses', 1024)).reasoning).toMatchObject({ effort: 'medium' });
    expect((await ask('rs-gpt-5.1-chat-latest', 'openai-responses', 31999)).reasoning).toMatchObject({ effort: 'medium' });
  });

  it("codex-mini-latest on a Responses channel is a reasoning model: 1024 goes as 'low', thinking off as 'low' (the least it takes)", async () => {
    const small = await ask('codex-mini-latest', 'openai-responses', 1024);
    expect(small.reasoning).toMatchObject({ effort: 'low' });
    expect(small.include).toEqual(['reasoning.encrypted_content']);
    upstream.enqueue(answersAs('openai-responses'));
    await anthropic.messages.create({ model: 'codex-mini-latest', max_tokens: 1024, thinking: { type: 'disabled' }, messages: question });
    expect(lastBody().reasoning).toMatchObject({ effort: 'low' });
  });

  it("o4-mini-deep-research on a Responses channel: Claude Code's 31999 goes as 'medium', the only effort it takes", async () => {
    expect((await ask('o4-mini-deep-research', 'openai-responses', 31999)).reasoning).toMatchObject({ effort: 'medium' });
    expect(await lastWarnings()).toContain("reasoning effort 'high' sent as 'medium': o4-mini-deep-research takes 'medium'");
  });

  it("gpt-5.4-mini on a Chat channel with a tool: reasoning_effort 'none' beside the tool (any other is refused), answered", async () => {
    upstream.enqueue(answersAs('openai-chat'));
    const tools = [{ name: 'lookup', description: 'Looks a city up', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }];
    const answer = await anthropic.messages.create({ model: 'gpt-5.4-mini', max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, tools, messages: question });
    expect(answer.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual(['Paris.']);
    expect(lastBody().tools).toHaveLength(1);
    expect(lastBody().reasoning_effort).toBe('none');
    expect(await lastWarnings()).toContain("reasoning effort 'low' sent as 'none': gpt-5.4-mini refuses another beside function tools on Chat Completions (a Responses channel takes it)");
    // Without tools the effort goes as asked.
    expect((await ask('gpt-5.4-mini', 'openai-chat', 2048)).reasoning_effort).toBe('low');
  });
});
