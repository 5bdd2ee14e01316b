import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatStream, replyFor } from '../fakes/scripted-vendor-wire.js';
import { weatherTool } from './clients.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PDF = Buffer.from('%PDF-1.4 test').toString('base64');
const wTool = { name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters as any };

describe('media in tool results and documents reach the upstream; gateway-made output replays', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  const withImageResult = (model: string) => ({
    model, max_tokens: 100, tools: [wTool],
    messages: [
      { role: 'user' as const, content: 'Show the radar' },
      { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_R', name: 'get_weather', input: { location: 'Paris' } }] },
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_R', content: [{ type: 'text' as const, text: 'radar:' }, { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: PNG } }] }] },
    ],
  });

  it('anthropic client tool_result with an image → gemini-3: image inside functionResponse.parts', async () => {
    fixture.upstream.enqueue(replyFor('gemini', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.anthropic.messages.create(withImageResult(M.gemini3));
    const last = fixture.upstream.requests.at(-1)!.body.contents.at(-1);
    expect(last.parts[0].functionResponse).toMatchObject({ name: 'get_weather', response: { output: 'radar:' }, parts: [{ inlineData: { mimeType: 'image/png', data: PNG } }] });
  });

  it('anthropic client tool_result with an image → gemini-2.5: image follows the functionResponse in the same turn', async () => {
    fixture.upstream.enqueue(replyFor('gemini', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.anthropic.messages.create(withImageResult(M.gemini));
    const last = fixture.upstream.requests.at(-1)!.body.contents.at(-1);
    expect(last.parts.map((p: any) => Object.keys(p)[0])).toEqual(['functionResponse', 'inlineData']);
  });

  it('anthropic client tool_result with an image → openai-responses: the image stays in function_call_output', async () => {
    fixture.upstream.enqueue(replyFor('openai-responses', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.anthropic.messages.create(withImageResult(M.responses));
    const output = fixture.upstream.requests.at(-1)!.body.input.find((i: any) => i.type === 'function_call_output');
    expect(output.output).toEqual([{ type: 'input_text', text: 'radar:' }, { type: 'input_image', image_url: `data:image/png;base64,${PNG}` }]);
  });

  it('anthropic client tool_result with an image → openai-chat: the tool message holds the text, a user message right after it the labelled image', async () => {
    fixture.upstream.enqueue(replyFor('openai-chat', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.anthropic.messages.create(withImageResult(M.chat));
    const messages = fixture.upstream.requests.at(-1)!.body.messages.slice(-3);
    expect(messages).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_R', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_R', content: 'radar:' },
      { role: 'user', content: [{ type: 'text', text: 'Image from the result of tool call toolu_R (get_weather):' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }] },
    ]);
  });

  const withPdfResult = (model: string) => ({
    model, max_tokens: 100, tools: [wTool],
    messages: [
      { role: 'user' as const, content: 'Read the forecast file' },
      { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_P', name: 'get_weather', input: { location: 'Paris' } }] },
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_P', content: [{ type: 'text' as const, text: 'forecast.pdf:' }, { type: 'document' as const, source: { type: 'base64' as const, media_type: 'application/pdf' as const, data: PDF } }] }] },
    ],
  });

  it('anthropic client tool_result with a PDF document (as Claude Code reads one) → gemini-3 functionResponse.parts, responses input_file, chat: dropped and said', async () => {
    fixture.upstream.enqueue(replyFor('gemini', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.anthropic.messages.create(withPdfResult(M.gemini3));
    const geminiTurn = fixture.upstream.requests.at(-1)!.body.contents.at(-1);
    expect(geminiTurn.parts[0].functionResponse).toMatchObject({ response: { output: 'forecast.pdf:' }, parts: [{ inlineData: { mimeType: 'application/pdf', data: PDF } }] });
    fixture.upstream.enqueue(replyFor('openai-responses', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.anthropic.messages.create(withPdfResult(M.responses));
    const output = fixture.upstream.requests.at(-1)!.body.input.find((i: any) => i.type === 'function_call_output');
    // OpenAI refuses inline file_data without a filename: an untitled document gets a placeholder.
    expect(output.output).toEqual([{ type: 'input_text', text: 'forecast.pdf:' }, { type: 'input_file', file_data: `data:application/pdf;base64,${PDF}`, filename: 'document.pdf' }]);
    fixture.upstream.enqueue(replyFor('openai-chat', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.anthropic.messages.create(withPdfResult(M.chat));
    const tool = fixture.upstream.requests.at(-1)!.body.messages.find((m: any) => m.role === 'tool');
    expect(tool.content).toBe('forecast.pdf:');
    expect(JSON.stringify((await fixture.lastLog()).warnings)).toContain('cannot hold files; file dropped from the result of toolu_P');
  });

  it('openai-responses client function_call_output with an input_file → anthropic tool_result document; gemini client functionResponse PDF part → anthropic too', async () => {
    fixture.upstream.enqueue(replyFor('anthropic', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.openai.responses.create({
      model: M.anthropic,
      tools: [{ type: 'function', name: 'get_weather', parameters: weatherTool.parameters, strict: false }],
      input: [
        { role: 'user', content: 'Read the forecast file' },
        { type: 'function_call', call_id: 'call_P', name: 'get_weather', arguments: '{"location":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_P', output: [{ type: 'input_text', text: 'forecast.pdf:' }, { type: 'input_file', filename: 'forecast.pdf', file_data: `data:application/pdf;base64,${PDF}` }] },
      ],
    });
    const fromResponses = fixture.upstream.requests.at(-1)!.body.messages.at(-1).content[0];
    expect(fromResponses).toMatchObject({ type: 'tool_result', tool_use_id: 'call_P', content: [{ type: 'text', text: 'forecast.pdf:' }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, title: 'forecast.pdf' }] });
    fixture.upstream.enqueue(replyFor('anthropic', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.gemini.models.generateContent({
      model: M.anthropic,
      config: { tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weatherTool.parameters }] }] },
      contents: [
        { role: 'user', parts: [{ text: 'Read the forecast file' }] },
        { role: 'model', parts: [{ functionCall: { id: 'fc_P', name: 'get_weather', args: { location: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'fc_P', name: 'get_weather', response: { output: 'forecast.pdf:' }, parts: [{ inlineData: { mimeType: 'application/pdf', data: PDF } }] } }] },
      ],
    });
    const fromGemini = fixture.upstream.requests.at(-1)!.body.messages.at(-1).content[0];
    expect(fromGemini).toMatchObject({ type: 'tool_result', content: [{ type: 'text', text: 'forecast.pdf:' }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } }] });
  });

  it('anthropic client PDF document → gemini inlineData, openai-chat file part, openai-responses input_file', async () => {
    const body = (model: string) => ({ model, max_tokens: 50, messages: [{ role: 'user' as const, content: [{ type: 'document' as const, source: { type: 'base64' as const, media_type: 'application/pdf' as const, data: PDF } }, { type: 'text' as const, text: 'Summarize' }] }] });
    fixture.upstream.enqueue(replyFor('gemini', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.anthropic.messages.create(body(M.gemini));
    expect(fixture.upstream.requests.at(-1)!.body.contents[0].parts[0]).toEqual({ inlineData: { mimeType: 'application/pdf', data: PDF } });
    fixture.upstream.enqueue(replyFor('openai-chat', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.anthropic.messages.create(body(M.chat));
    expect(fixture.upstream.requests.at(-1)!.body.messages[0].content[0]).toEqual({ type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'document.pdf' } });
    fixture.upstream.enqueue(replyFor('openai-responses', { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.anthropic.messages.create(body(M.responses));
    expect(fixture.upstream.requests.at(-1)!.body.input[0].content[0]).toEqual({ type: 'input_file', file_data: `data:application/pdf;base64,${PDF}`, filename: 'document.pdf' });
  });

  it('openai-responses client replays its own streamed output (text + two calls from an openai-chat upstream) → openai-chat upstream', async () => {
    fixture.upstream.enqueue(chatStream({ text: 'Both.', tools: [{ id: 'call_1', name: 'get_weather', args: '{"location":"Rome"}' }, { id: 'call_2', name: 'get_weather', args: '{"location":"Oslo"}' }], stop: 'tool', usage: { input: 5, output: 5 } }));
    const tools = [{ type: 'function' as const, name: 'get_weather', parameters: weatherTool.parameters, strict: false }];
    const first = await fixture.openai.responses.stream({ model: M.chat, input: 'Rome and Oslo?', tools }).finalResponse();
    fixture.upstream.enqueue(replyFor('openai-chat', { text: 'Done', stop: 'stop', usage: { input: 1, output: 1 } }, false));
    await fixture.openai.responses.create({
      model: M.chat, tools,
      input: [{ role: 'user', content: 'Rome and Oslo?' }, ...(first.output as any[]), { type: 'function_call_output', call_id: 'call_1', output: 'warm' }, { type: 'function_call_output', call_id: 'call_2', output: 'cold' }],
    });
    const messages = fixture.upstream.requests.at(-1)!.body.messages;
    expect(messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(messages[1]).toMatchObject({ content: 'Both.', tool_calls: [{ id: 'call_1' }, { id: 'call_2' }] });
    expect(messages.slice(2).map((m: any) => [m.tool_call_id, m.content])).toEqual([['call_1', 'warm'], ['call_2', 'cold']]);
  });
});
