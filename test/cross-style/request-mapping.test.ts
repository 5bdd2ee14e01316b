import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { send, timeTool, weatherTool, type Conv } from './clients.js';
import { M, crossPairs, modelOf, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

const pairs = crossPairs();
const choices = ['auto', 'none', 'required', 'specific'] as const;

function expectedChoice(up: WireStyle, choice: (typeof choices)[number]): unknown {
  switch (up) {
    case 'openai-chat':
      return choice === 'specific' ? { type: 'function', function: { name: 'get_time' } } : choice;
    case 'openai-responses':
      return choice === 'specific' ? { type: 'function', name: 'get_time' } : choice;
    case 'anthropic':
      return choice === 'specific' ? { type: 'tool', name: 'get_time' } : { type: choice === 'required' ? 'any' : choice };
    case 'gemini':
      return { functionCallingConfig: choice === 'specific' ? { mode: 'ANY', allowedFunctionNames: ['get_time'] } : { mode: choice === 'required' ? 'ANY' : choice.toUpperCase() } };
  }
}

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const URL_IMG = 'https://example.com/cat.png';

describe('tool_choice variants, images and system prompts map into the upstream style', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it.each(pairs.flatMap((p) => choices.map((choice) => ({ ...p, choice }))))('tool_choice $choice: $client client → $up upstream', async ({ up, client, choice }) => {
    fixture.upstream.enqueue(replyFor(up, { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    const conv: Conv = { model: modelOf[up], tools: [weatherTool, timeTool], toolChoice: choice === 'specific' ? { name: 'get_time' } : choice, messages: [{ role: 'user', text: 'hi' }] };
    await send(fixture, client, conv, false);
    const body = fixture.upstream.requests.at(-1)!.body;
    const sent = up === 'gemini' ? body.toolConfig : body.tool_choice;
    if (up === 'anthropic' && choice !== 'none') expect(sent).toMatchObject(expectedChoice(up, choice) as object);
    else expect(sent).toEqual(expectedChoice(up, choice));
    // Tools are still declared (a 'none' choice keeps them, so history with tool calls stays valid).
    const declared = up === 'gemini' ? body.tools[0].functionDeclarations : body.tools;
    expect(declared.length).toBe(2);
  });

  it.each(pairs)('images (base64 and URL): $client client → $up upstream', async ({ up, client }) => {
    fixture.upstream.enqueue(replyFor(up, { text: 'a cat', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    const conv: Conv = { model: modelOf[up], messages: [{ role: 'user', text: 'What is this?', images: [{ kind: 'base64', mediaType: 'image/png', data: PNG }, { kind: 'url', url: URL_IMG }] }] };
    await send(fixture, client, conv, false);
    const body = fixture.upstream.requests.at(-1)!.body;
    switch (up) {
      case 'openai-chat': {
        const parts = body.messages.at(-1).content;
        expect(parts.filter((p: any) => p.type === 'image_url').map((p: any) => p.image_url.url)).toEqual([`data:image/png;base64,${PNG}`, URL_IMG]);
        expect(parts.find((p: any) => p.type === 'text').text).toBe('What is this?');
        break;
      }
      case 'openai-responses': {
        const parts = body.input.at(-1).content;
        expect(parts.filter((p: any) => p.type === 'input_image').map((p: any) => p.image_url)).toEqual([`data:image/png;base64,${PNG}`, URL_IMG]);
        break;
      }
      case 'anthropic': {
        const parts = body.messages.at(-1).content;
        expect(parts.filter((p: any) => p.type === 'image').map((p: any) => p.source)).toEqual([{ type: 'base64', media_type: 'image/png', data: PNG }, { type: 'url', url: URL_IMG }]);
        break;
      }
      case 'gemini': {
        const parts = body.contents.at(-1).parts;
        expect(parts.filter((p: any) => p.inlineData !== undefined || p.fileData !== undefined)).toEqual([{ inlineData: { mimeType: 'image/png', data: PNG } }, { fileData: { mimeType: 'image/png', fileUri: URL_IMG } }]);
        break;
      }
    }
  });

  it('gemini client OpenAPI-style parameters (Type.OBJECT / Type.STRING) reach anthropic as JSON Schema', async () => {
    fixture.upstream.enqueue(replyFor('anthropic', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.gemini.models.generateContent({
      model: M.anthropic,
      contents: 'hi',
      config: { tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'OBJECT' as any, properties: { location: { type: 'STRING' as any, nullable: true } }, required: ['location'] } }] }] },
    });
    const tool = fixture.upstream.requests.at(-1)!.body.tools[0];
    expect(tool.input_schema.type).toBe('object');
    expect(JSON.stringify(tool.input_schema)).not.toContain('STRING');
  });

  it('anthropic client: user turn with tool_result followed by text → openai-chat upstream keeps both, tool message first', async () => {
    fixture.upstream.enqueue(replyFor('openai-chat', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.anthropic.messages.create({
      model: M.chat, max_tokens: 100, tools: [{ name: 'get_weather', input_schema: weatherTool.parameters as any }],
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { location: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'Sunny' }] }, { type: 'text', text: 'Also, thanks!' }] },
      ],
    });
    const messages = fixture.upstream.requests.at(-1)!.body.messages;
    expect(messages.slice(-2)).toEqual([{ role: 'tool', tool_call_id: 'toolu_1', content: 'Sunny' }, { role: 'user', content: 'Also, thanks!' }]);
  });

  it('openai-chat client: system + developer + a mid-conversation system message → gemini systemInstruction holds all, in order', async () => {
    fixture.upstream.enqueue(replyFor('gemini', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.openai.chat.completions.create({ model: M.gemini, messages: [{ role: 'system', content: 'A' }, { role: 'developer', content: 'B' }, { role: 'user', content: 'hi' }] });
    const body = fixture.upstream.requests.at(-1)!.body;
    expect(body.systemInstruction.parts.map((p: any) => p.text)).toEqual(['A', 'B']);
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'hi' }] }]);
  });
});
