/**
 * Files in tool results, through the real gateway and the official SDKs, to each upstream style (from the
 * audit of carrying them): audio in a tool result is dropped for Responses as in a user turn; an untitled
 * document gets the filename OpenAI requires with inline file_data; text-source and URL documents, error
 * results, PDF-only and empty results, Responses and Gemini clients' results, each in the upstream's form.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { weatherTool } from './clients.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

const PDF = Buffer.from('%PDF-1.4 test').toString('base64');
const WAV = Buffer.from('RIFF....WAVEfmt ').toString('base64');
const wTool = { name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters as any };

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

const ok = (style: WireStyle) => fixture.upstream.enqueue(replyFor(style, { text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }, false));
const lastBody = () => fixture.upstream.requests.at(-1)!.body;

/** An Anthropic tool turn whose tool_result holds `content` (and is_error when asked). */
const anthropicTurn = (model: string, content: any, isError = false) => ({
  model, max_tokens: 100, tools: [wTool],
  messages: [
    { role: 'user' as const, content: 'Read the file' },
    { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_P', name: 'get_weather', input: { location: 'Paris' } }] },
    { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_P', content, ...(isError ? { is_error: true } : {}) }] },
  ],
});

/** A Gemini tool turn whose functionResponse carries `parts`. */
const geminiTurn = (model: string, parts: any[]) => ({
  model,
  config: { tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weatherTool.parameters }] }] },
  contents: [
    { role: 'user', parts: [{ text: 'Record the forecast' }] },
    { role: 'model', parts: [{ functionCall: { id: 'fc_A', name: 'get_weather', args: { location: 'Paris' } } }] },
    { role: 'user', parts: [{ functionResponse: { id: 'fc_A', name: 'get_weather', response: { output: 'recorded:' }, parts } }] },
  ],
});

describe('what each upstream can take', () => {
  it('gemini client functionResponse with an audio part → responses upstream: the audio is dropped with a warning, as in a user turn (Responses input is text, images and documents)', async () => {
    ok('openai-responses');
    await fixture.gemini.models.generateContent(geminiTurn(M.responses, [{ inlineData: { mimeType: 'audio/wav', data: WAV } }]));
    const output = lastBody().input.find((i: any) => i.type === 'function_call_output');
    expect(JSON.stringify(output)).not.toContain('audio/wav');
  });

  it('gemini client user turn with the same audio part → responses upstream: dropped ', async () => {
    ok('openai-responses');
    await fixture.gemini.models.generateContent({ model: M.responses, contents: [{ role: 'user', parts: [{ text: 'Transcribe' }, { inlineData: { mimeType: 'audio/wav', data: WAV } }] }] });
    expect(JSON.stringify(lastBody().input)).not.toContain('audio/wav');
  });

  it('anthropic client tool_result document without a title (as Claude Code sends one) → responses upstream: the input_file has the filename OpenAI requires with file_data', async () => {
    ok('openai-responses');
    await fixture.anthropic.messages.create(anthropicTurn(M.responses, [{ type: 'text', text: 'report.pdf:' }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } }]));
    const output = lastBody().input.find((i: any) => i.type === 'function_call_output');
    const file = output.output.find((p: any) => p.type === 'input_file');
    expect(file.filename).toEqual(expect.any(String));
  });
});

describe('wire shapes', () => {
  it('text-source document in a tool_result → text, to gemini, responses and chat', async () => {
    const content = [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'line one' }, title: 'notes.txt' }];
    ok('gemini');
    await fixture.anthropic.messages.create(anthropicTurn(M.gemini3, content));
    expect(lastBody().contents.at(-1).parts[0].functionResponse).toEqual({ id: 'toolu_P', name: 'get_weather', response: { output: 'notes.txt\n\nline one' } });
    ok('openai-responses');
    await fixture.anthropic.messages.create(anthropicTurn(M.responses, content));
    expect(lastBody().input.find((i: any) => i.type === 'function_call_output').output).toBe('notes.txt\n\nline one');
    ok('openai-chat');
    await fixture.anthropic.messages.create(anthropicTurn(M.chat, content));
    expect(lastBody().messages.find((m: any) => m.role === 'tool').content).toBe('notes.txt\n\nline one');
  });

  it('URL PDF document in a tool_result → gemini-3 fileData in functionResponse.parts, gemini-2.5 beside, responses file_url, chat dropped', async () => {
    const content = [{ type: 'text', text: 'r:' }, { type: 'document', source: { type: 'url', url: 'https://example.com/r.pdf' } }];
    ok('gemini');
    await fixture.anthropic.messages.create(anthropicTurn(M.gemini3, content));
    expect(lastBody().contents.at(-1).parts[0].functionResponse.parts).toEqual([{ fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/r.pdf' } }]);
    ok('gemini');
    await fixture.anthropic.messages.create(anthropicTurn(M.gemini, content));
    expect(lastBody().contents.at(-1).parts).toEqual([
      { functionResponse: { id: 'toolu_P', name: 'get_weather', response: { output: 'r:' } } },
      { fileData: { mimeType: 'application/pdf', fileUri: 'https://example.com/r.pdf' } },
    ]);
    ok('openai-responses');
    await fixture.anthropic.messages.create(anthropicTurn(M.responses, content));
    expect(lastBody().input.find((i: any) => i.type === 'function_call_output').output).toEqual([{ type: 'input_text', text: 'r:' }, { type: 'input_file', file_url: 'https://example.com/r.pdf' }]);
    ok('openai-chat');
    await fixture.anthropic.messages.create(anthropicTurn(M.chat, content));
    expect(lastBody().messages.find((m: any) => m.role === 'tool').content).toBe('r:');
  });

  it('is_error result with a PDF → gemini {error} + parts, responses array (flag warned), anthropic passthrough untouched', async () => {
    const content = [{ type: 'text', text: 'failed' }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } }];
    ok('gemini');
    await fixture.anthropic.messages.create(anthropicTurn(M.gemini3, content, true));
    expect(lastBody().contents.at(-1).parts[0].functionResponse).toMatchObject({ response: { error: 'failed' }, parts: [{ inlineData: { mimeType: 'application/pdf', data: PDF } }] });
    ok('openai-responses');
    await fixture.anthropic.messages.create(anthropicTurn(M.responses, content, true));
    expect(lastBody().input.find((i: any) => i.type === 'function_call_output').output).toHaveLength(2);
    ok('anthropic');
    const body = anthropicTurn(M.anthropic, content, true);
    await fixture.anthropic.messages.create(body);
    expect(lastBody().messages).toEqual(body.messages);
  });

  it('PDF-only result and empty result → chat "" (warned), responses [input_file] / "", gemini {} + parts', async () => {
    const only = [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } }];
    ok('openai-chat');
    await fixture.anthropic.messages.create(anthropicTurn(M.chat, only));
    expect(lastBody().messages.find((m: any) => m.role === 'tool').content).toBe('');
    ok('openai-responses');
    await fixture.anthropic.messages.create(anthropicTurn(M.responses, only));
    expect(lastBody().input.find((i: any) => i.type === 'function_call_output').output).toEqual([{ type: 'input_file', file_data: `data:application/pdf;base64,${PDF}`, filename: 'document.pdf' }]);
    ok('openai-responses');
    await fixture.anthropic.messages.create(anthropicTurn(M.responses, []));
    expect(lastBody().input.find((i: any) => i.type === 'function_call_output').output).toBe('');
    ok('gemini');
    await fixture.anthropic.messages.create(anthropicTurn(M.gemini3, only));
    expect(lastBody().contents.at(-1).parts[0].functionResponse).toEqual({ id: 'toolu_P', name: 'get_weather', response: {}, parts: [{ inlineData: { mimeType: 'application/pdf', data: PDF } }] });
  });

  it('responses client: output string stays text; input_file with file_url → anthropic url document; → gemini-2.5 beside', async () => {
    const input = (output: any) => [
      { role: 'user', content: 'Read' },
      { type: 'function_call', call_id: 'call_P', name: 'get_weather', arguments: '{"location":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_P', output },
    ];
    const tools = [{ type: 'function' as const, name: 'get_weather', parameters: weatherTool.parameters, strict: false }];
    ok('anthropic');
    await fixture.openai.responses.create({ model: M.anthropic, tools, input: input('plain') as any });
    expect(lastBody().messages.at(-1).content[0]).toMatchObject({ type: 'tool_result', content: [{ type: 'text', text: 'plain' }] });
    ok('anthropic');
    await fixture.openai.responses.create({ model: M.anthropic, tools, input: input([{ type: 'input_file', file_url: 'https://example.com/r.pdf' }]) as any });
    expect(lastBody().messages.at(-1).content[0].content).toEqual([{ type: 'document', source: { type: 'url', url: 'https://example.com/r.pdf' } }]);
    ok('gemini');
    await fixture.openai.responses.create({ model: M.gemini, tools, input: input([{ type: 'input_text', text: 'x' }, { type: 'input_file', filename: 'r.pdf', file_data: `data:application/pdf;base64,${PDF}` }]) as any });
    expect(lastBody().contents.at(-1).parts.map((p: any) => Object.keys(p)[0])).toEqual(['functionResponse', 'inlineData']);
  });

  it('gemini client: an image part still becomes an image; a PDF → chat dropped with a warning', async () => {
    ok('anthropic');
    const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    await fixture.gemini.models.generateContent(geminiTurn(M.anthropic, [{ inlineData: { mimeType: 'image/png', data: PNG } }]));
    expect(lastBody().messages.at(-1).content[0].content).toEqual([{ type: 'text', text: 'recorded:' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }]);
    ok('openai-chat');
    await fixture.gemini.models.generateContent(geminiTurn(M.chat, [{ inlineData: { mimeType: 'application/pdf', data: PDF } }]));
    expect(lastBody().messages.find((m: any) => m.role === 'tool').content).toBe('recorded:');
    expect(JSON.stringify((await fixture.lastLog()).warnings)).toContain('cannot hold files');
  });

  it('a text file a tool returned reaches a chat upstream as text, as in a user turn (gemini and responses clients)', async () => {
    const csv = 'city,temp\nParis,21\n';
    const data = Buffer.from(csv).toString('base64');
    ok('openai-chat');
    await fixture.gemini.models.generateContent(geminiTurn(M.chat, [{ inlineData: { mimeType: 'text/csv', data } }]));
    expect(lastBody().messages.find((m: any) => m.role === 'tool').content).toEqual([{ type: 'text', text: 'recorded:' }, { type: 'text', text: csv }]);
    expect(JSON.stringify((await fixture.lastLog()).warnings)).not.toContain('cannot hold files');
    ok('openai-chat');
    const tools = [{ type: 'function' as const, name: 'get_weather', parameters: weatherTool.parameters, strict: false }];
    const input = [
      { role: 'user', content: 'Read' },
      { type: 'function_call', call_id: 'call_T', name: 'get_weather', arguments: '{"location":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_T', output: [{ type: 'input_file', filename: 'notes.txt', file_data: `data:text/plain;base64,${Buffer.from('sunny').toString('base64')}` }] },
    ];
    await fixture.openai.responses.create({ model: M.chat, tools, input: input as any });
    expect(lastBody().messages.find((m: any) => m.role === 'tool').content).toBe('sunny');
  });
});
