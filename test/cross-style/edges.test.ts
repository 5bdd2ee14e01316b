import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStream, anthropicWhole, chatStream, geminiStream } from '../fakes/scripted-vendor-wire.js';
import { send, weatherTool, type ClientStyle } from './clients.js';
import { M, callerKey, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

describe('edge cases of conversion', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it.each(['openai-chat', 'openai-responses', 'anthropic'] as ClientStyle[])('non-streaming %s client ← gemini stream cut before any finishReason: the SDK raises a 502, not a normal stop', async (client) => {
    fixture.upstream.clearQueue();
    const whole = geminiStream({ text: 'The answer is forty', usage: { input: 5, output: 5 } });
    fixture.upstream.enqueue({ ...whole, sse: whole.sse!.slice(0, 2) });
    const outcome = await send(fixture, client, { model: M.gemini, messages: [{ role: 'user', text: 'hi' }] }, false).then(
      (observed) => ({ observed, error: undefined }),
      (error: any) => ({ observed: undefined, error }),
    );
    expect(outcome.observed).toBeUndefined();
    expect(outcome.error?.status).toBe(502);
    expect((await fixture.lastLog()).status).toBe(502);
  });

  // @google/genai always asks for alt=sse: the JSON-array framing other Gemini clients use is read raw.
  it('gemini client without alt=sse (JSON-array framing) ← anthropic upstream: the body is one valid JSON array', async () => {
    fixture.upstream.enqueue(anthropicStream({ text: 'Hello <b> & you', stop: 'stop', usage: { input: 5, output: 5 } }));
    const response = await fetch(`${fixture.gateway.url}/v1beta/models/${M.anthropic}:streamGenerateContent`, {
      method: 'POST', headers: { 'x-goog-api-key': callerKey, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(response.status).toBe(200);
    const array = JSON.parse(await response.text());
    expect(Array.isArray(array)).toBe(true);
    expect(array.flatMap((r: any) => r.candidates[0].content.parts).map((p: any) => p.text).join('')).toBe('Hello <b> & you');
    expect(array.at(-1).candidates[0].finishReason).toBe('STOP');
  });

  it.each(['openai-responses', 'anthropic', 'gemini'] as ClientStyle[])('%s client ← openai-chat upstream tool call without arguments ("" streamed): arguments read as {}', async (client) => {
    fixture.upstream.enqueue(chatStream({ tools: [{ id: 'call_N', name: 'get_time', args: '' }], stop: 'tool', usage: { input: 5, output: 5 } }));
    const observed = await send(fixture, client, { model: M.chat, tools: [{ name: 'get_time', description: 'now', parameters: { type: 'object', properties: {} } }], messages: [{ role: 'user', text: 'time?' }] }, true).catch((error: Error) => ({ error: error.message }) as any);
    expect(observed.error).toBeUndefined();
    expect(observed.tools).toEqual([{ id: 'call_N', name: 'get_time', args: {} }]);
  });

  it.each([
    ['openai-chat', 'content_filter'],
    ['openai-responses', 'incomplete:content_filter'],
    ['gemini', 'SAFETY'],
  ] as [ClientStyle, string][])('%s client ← anthropic refusal → %s', async (client, expected) => {
    const reply = anthropicWhole({ text: 'I cannot help with that.', stop: 'stop', usage: { input: 5, output: 5 } });
    (reply.json as any).stop_reason = 'refusal';
    fixture.upstream.enqueue(reply);
    const observed = await send(fixture, client, { model: M.anthropic, messages: [{ role: 'user', text: 'bad' }] }, false);
    expect(observed.stop).toBe(expected);
  });

  it('@google/genai chat session (streamed turn, automatic history) → anthropic: the replayed history is well formed', async () => {
    fixture.upstream.enqueue(anthropicStream({ text: 'Let me check.', tools: [{ id: 'toolu_C1', name: 'get_weather', args: '{"location":"Oslo"}' }], stop: 'tool', usage: { input: 5, output: 5 } }));
    const chat = fixture.gemini.chats.create({ model: M.anthropic, config: { tools: [{ functionDeclarations: [{ name: weatherTool.name, description: weatherTool.description, parametersJsonSchema: weatherTool.parameters }] }] } });
    const parts: any[] = [];
    for await (const chunk of await chat.sendMessageStream({ message: 'Weather in Oslo?' })) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    const call = parts.find((p) => p.functionCall !== undefined).functionCall;
    fixture.upstream.enqueue(anthropicWhole({ text: 'Cold.', stop: 'stop', usage: { input: 5, output: 5 } }));
    const second = await chat.sendMessage({ message: [{ functionResponse: { id: call.id, name: call.name, response: { output: '-3 C' } } }] });
    expect(second.text).toBe('Cold.');
    const body = fixture.upstream.requests.at(-1)!.body;
    // The SDK's history keeps one content per streamed chunk: the text may arrive as several text blocks.
    expect(body.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user']);
    const assistant = body.messages[1].content;
    expect(assistant.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('')).toBe('Let me check.');
    expect(assistant.filter((b: any) => b.type === 'tool_use')).toEqual([{ type: 'tool_use', id: 'toolu_C1', name: 'get_weather', input: { location: 'Oslo' } }]);
    expect(body.messages[2].content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_C1', content: [{ type: 'text', text: '-3 C' }] }]);
  });
});
