import { FunctionCallingConfigMode, Type } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import type { WireStyle } from '../fakes/scripted-vendor-wire.js';
import { geminiRaw } from './gemini-support.js';

/**
 * What a @google/genai request becomes at each non-Gemini upstream style: systemInstruction (string,
 * Content, several parts), multi-turn contents with role "model", generationConfig, tools with OpenAPI
 * `parameters` (upper-case Type) and `parametersJsonSchema`, toolConfig modes, responseSchema, thinking.
 * Documented (docs/behaviour.md "Styles and conversion"): what cannot be carried becomes a log warning.
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

async function viaSdk(style: WireStyle, params: Record<string, unknown>): Promise<{ upstream: any; row: any }> {
  const before = fixture.primary[style].requests.length;
  await fixture.sdk.gemini.models.generateContent({ model: modelOf[style], ...params } as any);
  expect(fixture.primary[style].requests.length - before).toBe(1);
  const logs = await fixture.logs();
  return { upstream: fixture.primary[style].requests.at(-1)!.body, row: logs.at(-1) };
}

const history = [
  { role: 'user', parts: [{ text: 'Hi' }] },
  { role: 'model', parts: [{ text: 'Hello!' }] },
  { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
];
const weatherDecl = {
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING }, days: { type: Type.ARRAY, items: { type: Type.INTEGER } } }, required: ['city'] },
};
const weatherJson = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'array', items: { type: 'integer' } } }, required: ['city'] };
const timeDecl = { name: 'get_time', parametersJsonSchema: { type: 'object', properties: { tz: { type: 'string' } } } };
const answerSchema = { type: Type.OBJECT, properties: { answer: { type: Type.STRING } }, required: ['answer'] };
const answerJson = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

const config = {
  systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Answer in French.' }] },
  temperature: 0.4,
  topP: 0.8,
  topK: 20,
  maxOutputTokens: 300,
  stopSequences: ['END'],
  seed: 7,
  presencePenalty: 0.5,
  frequencyPenalty: 0.25,
  responseMimeType: 'application/json',
  responseSchema: answerSchema,
  tools: [{ functionDeclarations: [weatherDecl, timeDecl] }],
  toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_weather'] } },
};

describe('a full Gemini request reaches each upstream style', () => {
  it('openai-chat upstream', async () => {
    const { upstream, row } = await viaSdk('openai-chat', { contents: history, config });
    expect(upstream.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'Weather in Paris?' },
    ]);
    expect(upstream).toMatchObject({ temperature: 0.4, top_p: 0.8, max_tokens: 300, stop: ['END'], seed: 7, presence_penalty: 0.5, frequency_penalty: 0.25 });
    expect(upstream.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', schema: answerJson } });
    expect(upstream.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: weatherJson } },
      { type: 'function', function: { name: 'get_time', parameters: timeDecl.parametersJsonSchema } },
    ]);
    expect(upstream.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(upstream.top_k).toBeUndefined();
    expect(String(row.warnings)).toContain('topK');
  });

  it('openai-responses upstream', async () => {
    const { upstream, row } = await viaSdk('openai-responses', { contents: history, config });
    expect(upstream.instructions).toBe('Be brief.\n\nAnswer in French.');
    expect(upstream.input.map((item: any) => item.role)).toEqual(['user', 'assistant', 'user']);
    expect(upstream).toMatchObject({ temperature: 0.4, top_p: 0.8, max_output_tokens: 300, tool_choice: { type: 'function', name: 'get_weather' } });
    expect(upstream.text).toEqual({ format: { type: 'json_schema', name: 'response', schema: answerJson } });
    expect(upstream.tools[0]).toMatchObject({ type: 'function', name: 'get_weather', parameters: weatherJson });
    expect(String(row.warnings)).toMatch(/stop sequences|seed/);
  });

  it('anthropic upstream', async () => {
    const { upstream, row } = await viaSdk('anthropic', { contents: history, config });
    expect(upstream.system).toEqual([{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Answer in French.' }]);
    expect(upstream.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(upstream).toMatchObject({ max_tokens: 300, temperature: 0.4, top_p: 0.8, top_k: 20, stop_sequences: ['END'], tool_choice: { type: 'tool', name: 'get_weather' } });
    expect(upstream.tools[0]).toEqual({ name: 'get_weather', description: 'Weather of a city', input_schema: weatherJson });
    // Anthropic requires every object closed (src/convert/anthropic-messages/format-anthropic-output-schema.ts).
    expect(upstream.output_config).toEqual({ format: { type: 'json_schema', schema: { ...answerJson, additionalProperties: false } } });
    expect(String(row.warnings)).toContain('seed');
  });

  it('systemInstruction as a plain string (REST) reaches anthropic as its system prompt', async () => {
    const before = fixture.primary.anthropic.requests.length;
    const answer = await geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.anthropic}:generateContent`, { systemInstruction: 'Be terse.', contents: [{ parts: [{ text: 'Hi' }] }] });
    expect(answer.status, answer.text).toBe(200);
    expect(fixture.primary.anthropic.requests.length - before).toBe(1);
    expect(fixture.primary.anthropic.requests.at(-1)!.body.system).toBe('Be terse.');
  });

  it('snake_case REST body (system_instruction, inline_data, generation_config.max_output_tokens) reaches openai-chat', async () => {
    const before = fixture.primary['openai-chat'].requests.length;
    const answer = await geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf['openai-chat']}:generateContent`, {
      system_instruction: { parts: [{ text: 'Sys' }] },
      contents: [{ role: 'user', parts: [{ text: 'Look' }, { inline_data: { mime_type: 'image/png', data: 'iVBORw0KGgo=' } }] }],
      generation_config: { max_output_tokens: 50 },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(fixture.primary['openai-chat'].requests.length - before).toBe(1);
    const sent = fixture.primary['openai-chat'].requests.at(-1)!.body;
    expect(sent.messages[0]).toEqual({ role: 'system', content: 'Sys' });
    expect(sent.messages[1].content).toEqual([{ type: 'text', text: 'Look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }]);
    expect(sent.max_tokens).toBe(50);
  });
});

describe('OpenAPI nullable (Type + nullable: true, as @google/genai writes it)', () => {
  // Gemini lets such a value be null; OpenAI and Anthropic read JSON Schema, which has no `nullable`.
  const nullableSchema = { type: Type.OBJECT, properties: { note: { type: Type.STRING, nullable: true }, tags: { type: Type.ARRAY, nullable: true, items: { type: Type.STRING } } }, required: ['note'] };
  const nullableJson = { type: 'object', properties: { note: { type: ['string', 'null'] }, tags: { type: ['array', 'null'], items: { type: 'string' } } }, required: ['note'] };
  const nullableConfig = {
    tools: [{ functionDeclarations: [{ name: 'save_note', parameters: nullableSchema }] }],
    responseMimeType: 'application/json',
    responseSchema: nullableSchema,
  };

  it('openai-chat: a "null" type in the function parameters and the response_format schema', async () => {
    const { upstream } = await viaSdk('openai-chat', { contents: 'Save it', config: nullableConfig });
    expect(upstream.tools[0].function.parameters).toEqual(nullableJson);
    expect(upstream.response_format.json_schema.schema).toEqual(nullableJson);
  });

  it('openai-responses: a "null" type in the function parameters and the text.format schema', async () => {
    const { upstream } = await viaSdk('openai-responses', { contents: 'Save it', config: nullableConfig });
    expect(upstream.tools[0].parameters).toEqual(nullableJson);
    expect(upstream.text.format.schema).toEqual(nullableJson);
  });

  it('anthropic: a "null" type in the tool input_schema (the output schema had one already)', async () => {
    const { upstream } = await viaSdk('anthropic', { contents: 'Save it', config: nullableConfig });
    expect(upstream.tools[0].input_schema).toEqual(nullableJson);
    expect(upstream.output_config.format.schema).toEqual({ ...nullableJson, additionalProperties: false });
  });
});

describe('toolConfig modes', () => {
  const tools = [{ functionDeclarations: [weatherDecl, timeDecl] }];
  it('NONE → chat tool_choice "none", anthropic {type:none}', async () => {
    const toolConfig = { functionCallingConfig: { mode: FunctionCallingConfigMode.NONE } };
    expect((await viaSdk('openai-chat', { contents: history, config: { tools, toolConfig } })).upstream.tool_choice).toBe('none');
    expect((await viaSdk('anthropic', { contents: history, config: { tools, toolConfig } })).upstream.tool_choice).toEqual({ type: 'none' });
  });
  it('ANY without names → chat "required", anthropic {type:any}, responses "required"', async () => {
    const toolConfig = { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } };
    expect((await viaSdk('openai-chat', { contents: history, config: { tools, toolConfig } })).upstream.tool_choice).toBe('required');
    expect((await viaSdk('anthropic', { contents: history, config: { tools, toolConfig } })).upstream.tool_choice).toEqual({ type: 'any' });
    expect((await viaSdk('openai-responses', { contents: history, config: { tools, toolConfig } })).upstream.tool_choice).toBe('required');
  });
  it('AUTO → chat "auto"', async () => {
    const toolConfig = { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } };
    expect((await viaSdk('openai-chat', { contents: history, config: { tools, toolConfig } })).upstream.tool_choice).toBe('auto');
  });
});

describe('thinkingConfig', () => {
  it('thinkingBudget 0 → anthropic thinking disabled; responses effort minimal', async () => {
    const thinkingConfig = { thinkingBudget: 0 };
    expect((await viaSdk('anthropic', { contents: history, config: { thinkingConfig } })).upstream.thinking).toEqual({ type: 'disabled' });
    expect((await viaSdk('openai-responses', { contents: history, config: { thinkingConfig } })).upstream.reasoning).toMatchObject({ effort: 'minimal' });
  });
  it('thinkingBudget 2048 + includeThoughts → anthropic budget 2048 below max_tokens; responses summary auto', async () => {
    const thinkingConfig = { thinkingBudget: 2048, includeThoughts: true };
    const anthropic = (await viaSdk('anthropic', { contents: history, config: { thinkingConfig, maxOutputTokens: 8000 } })).upstream;
    expect(anthropic.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(anthropic.max_tokens).toBe(8000);
    expect((await viaSdk('openai-responses', { contents: history, config: { thinkingConfig } })).upstream.reasoning).toEqual({ effort: 'low', summary: 'auto' });
  });
  it('thinkingLevel HIGH → chat reasoning_effort high', async () => {
    expect((await viaSdk('openai-chat', { contents: history, config: { thinkingConfig: { thinkingLevel: 'HIGH' } } })).upstream.reasoning_effort).toBe('high');
  });
});

describe('Gemini-only tools and fields to other vendors: a documented drop with a warning, not a 500', () => {
  it('googleSearch + codeExecution + safetySettings → openai-chat: served, dropped, warned', async () => {
    const { upstream, row } = await viaSdk('openai-chat', {
      contents: history,
      config: { tools: [{ googleSearch: {} }, { codeExecution: {} }], safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] },
    });
    expect(upstream.tools).toBeUndefined();
    expect(String(row.warnings)).toContain('googleSearch');
    expect(String(row.warnings)).toContain('safetySettings');
  });
});
