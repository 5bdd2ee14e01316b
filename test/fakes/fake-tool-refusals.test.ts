/**
 * The fakes refuse the tool declarations their vendors refuse, with the vendors' words (the evidence is
 * cited beside each check), and take what the vendors take, so an end-to-end test fails when the gateway
 * sends an upstream something it would refuse: Chat an empty `tools` (or `tool_calls`) array and a tool
 * choice or `parallel_tool_calls` without tools; Responses a choice naming no declared function; Anthropic a
 * tool choice beside no tools; Gemini a tool entry declaring nothing or a calling config beside no function.
 */
import Anthropic from '@anthropic-ai/sdk';
import { FunctionCallingConfigMode, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropicUpstream, type FakeAnthropicUpstream } from './fake-anthropic-upstream.js';
import { startFakeGeminiUpstream, type FakeGeminiUpstream } from './fake-gemini-upstream.js';
import { startFakeOpenaiResponsesUpstream, type FakeOpenaiResponsesUpstream } from './fake-openai-responses-upstream.js';
import { startFakeOpenaiUpstream, type FakeOpenaiUpstream } from './fake-openai-upstream.js';

let chat: FakeOpenaiUpstream;
let responses: FakeOpenaiResponsesUpstream;
let claude: FakeAnthropicUpstream;
let gemini: FakeGeminiUpstream;

beforeAll(async () => {
  [chat, responses, claude, gemini] = await Promise.all([startFakeOpenaiUpstream(), startFakeOpenaiResponsesUpstream('sk-responses'), startFakeAnthropicUpstream(), startFakeGeminiUpstream()]);
});
afterAll(async () => {
  await Promise.all([chat, responses, claude, gemini].map((fake) => fake?.close()));
});

/** The status, body (OpenAI and Anthropic SDKs) and message of the error a call ends in, or `ok` when it succeeds. */
async function outcome(call: () => Promise<unknown>): Promise<{ status: number; error: unknown; message: string } | 'ok'> {
  try {
    await call();
    return 'ok';
  } catch (error) {
    const { status, error: body, message } = error as { status: number; error: unknown; message: string };
    return { status, error: body, message };
  }
}

const weather = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } };

describe('the Chat fake', () => {
  const client = () => new OpenAI({ apiKey: 'sk-x', baseURL: `${chat.url}/v1`, maxRetries: 0 });
  const ask = (body: Record<string, unknown>) => outcome(() => client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body } as never));

  it("refuses tools: [] as OpenAI does (empty_array)", async () => {
    expect(await ask({ tools: [] })).toMatchObject({
      status: 400,
      error: { message: "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.", type: 'invalid_request_error', param: 'tools', code: 'empty_array' },
    });
  });

  it('refuses an assistant message with tool_calls: []', async () => {
    const result = await ask({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a', tool_calls: [] }, { role: 'user', content: 'hi' }] });
    expect(result).toMatchObject({ status: 400, error: { message: "Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.", param: 'messages[1].tool_calls' } });
  });

  for (const field of [{ tool_choice: 'none' }, { tool_choice: 'auto' }, { parallel_tool_calls: false }]) {
    it(`refuses ${JSON.stringify(field)} without tools`, async () => {
      const [name] = Object.keys(field);
      expect(await ask(field)).toMatchObject({ status: 400, error: { message: `Invalid value for '${name}': '${name}' is only allowed when 'tools' are specified.`, param: name } });
    });
  }

  it('takes the same fields beside tools', async () => {
    expect(await ask({ tools: [weather], tool_choice: 'auto', parallel_tool_calls: false })).toBe('ok');
  });
});

describe('the Responses fake', () => {
  const client = () => new OpenAI({ apiKey: 'sk-responses', baseURL: `${responses.url}/v1`, maxRetries: 0 });
  const ask = (body: Record<string, unknown>) => outcome(() => client().responses.create({ model: 'gpt-5-mini', input: 'hi', ...body } as never));

  for (const body of [{ tools: [] }, { tools: [], tool_choice: 'auto' }, { tools: [], tool_choice: 'none' }, { parallel_tool_calls: false }]) {
    it(`takes ${JSON.stringify(body)}, as the Responses API does`, async () => {
      expect(await ask(body)).toBe('ok');
    });
  }

  it("refuses tool_choice 'required' without tools", async () => {
    expect(await ask({ tools: [], tool_choice: 'required' })).toMatchObject({
      status: 400,
      error: { message: "Tool choice 'required' must be specified with 'tools' parameter.", type: 'invalid_request_error', param: 'tool_choice', code: null },
    });
  });

  it('refuses a named function that is not declared, and takes one that is', async () => {
    const tool = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false };
    expect(await ask({ tool_choice: { type: 'function', name: 'get_weather' } })).toMatchObject({ status: 400, error: { message: "Tool choice 'function' not found in 'tools' parameter." } });
    expect(await ask({ tools: [tool], tool_choice: { type: 'function', name: 'get_weather' } })).toBe('ok');
  });
});

describe('the Anthropic fake', () => {
  const client = () => new Anthropic({ apiKey: 'sk-ant', baseURL: claude.url, maxRetries: 0 });
  const ask = (body: Record<string, unknown>) => outcome(() => client().messages.create({ model: 'claude-sonnet-5-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], ...body } as never));

  it('takes tools: []', async () => {
    expect(await ask({ tools: [] })).toBe('ok');
  });

  for (const body of [{ tools: [], tool_choice: { type: 'auto' } }, { tool_choice: { type: 'any' } }]) {
    it(`refuses ${JSON.stringify(body)}`, async () => {
      expect(await ask(body)).toMatchObject({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error', message: 'tool_choice may only be specified while providing tools.' } } });
    });
  }
});

describe('the Gemini fake', () => {
  const client = () => new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: gemini.url } });
  const ask = (config: Record<string, unknown>) => outcome(() => client().models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi', config }));
  const declaration = { name: 'get_weather', parametersJsonSchema: { type: 'object', properties: {} } };

  it('takes tools: [], an empty repeated field', async () => {
    expect(await ask({ tools: [] })).toBe('ok');
  });

  it('refuses a tools entry with no function declared', async () => {
    const result = await ask({ tools: [{ functionDeclarations: [] }] });
    expect(result).toMatchObject({ status: 400, message: expect.stringContaining('Request contains an invalid argument.') });
  });

  it('refuses a function-calling config beside no function declarations, and takes it beside one', async () => {
    const result = await ask({ toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } } });
    expect(result).toMatchObject({ status: 400, message: expect.stringContaining('Function calling config is set without function_declarations.') });
    expect(await ask({ tools: [{ functionDeclarations: [declaration] }], toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.NONE } } })).toBe('ok');
  });
});
