import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStream, anthropicWhole, chatWhole, geminiStream, responsesStream, responsesWhole, type Answer } from '../fakes/scripted-vendor-wire.js';
import { weatherTool } from './clients.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

const SIG = 'EvQBCkYICxgCKkAxhD4NUKFzudtZ6NzbZdEiBACIScTzqjPViM596iWLZIk4EFKYYBj3B6Ptl3b0dcQv/VeJBNbejNWIWRBn+KPNEgz6HWtKx7p+QRgK';
const thinkingAnswer: Answer = { thinking: { text: 'The user wants 925/5. That is 185.', signature: SIG }, text: '925 / 5 = 185', stop: 'stop', usage: { input: 40, output: 60 } };
const toolThinking: Answer = {
  thinking: { text: 'I should call the weather tool.', signature: SIG },
  tools: [{ id: 'toolu_T1', name: 'get_weather', args: '{"location":"Paris"}' }],
  stop: 'tool',
  usage: { input: 40, output: 60, reasoning: 20 },
};
const wTool = { name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters as any };

describe('thinking / reasoning blocks with signatures round-tripped across turns', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it.each([false, true])('openai-responses client → anthropic upstream: thinking signature survives the replay (stream=%s)', async (stream) => {
    fixture.upstream.enqueue(stream ? anthropicStream(thinkingAnswer) : anthropicWhole(thinkingAnswer));
    const body = { model: M.anthropic, input: 'What is 925/5?', reasoning: { effort: 'low' as const, summary: 'auto' as const } };
    const first = stream ? await fixture.openai.responses.stream(body).finalResponse() : await fixture.openai.responses.create(body);
    expect(first.output_text).toBe('925 / 5 = 185');
    const reasoning = first.output.find((item) => item.type === 'reasoning') as any;
    expect(reasoning.summary.map((s: any) => s.text).join('')).toBe(thinkingAnswer.thinking!.text);
    fixture.upstream.enqueue(anthropicWhole({ text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }));
    await fixture.openai.responses.create({ model: M.anthropic, input: [{ role: 'user', content: 'What is 925/5?' }, ...(first.output as any[]), { role: 'user', content: 'And times 2?' }], reasoning: { effort: 'low', summary: 'auto' } });
    const replayed = fixture.upstream.requests.at(-1)!.body;
    expect(replayed.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'thinking', thinking: thinkingAnswer.thinking!.text, signature: SIG }, { type: 'text', text: '925 / 5 = 185' }] });
  });

  it.each([false, true])('gemini client → anthropic upstream: thinking + tool call replayed with its signature (stream=%s)', async (stream) => {
    fixture.upstream.enqueue(stream ? anthropicStream(toolThinking) : anthropicWhole(toolThinking));
    const params = { model: M.anthropic, contents: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }], config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 }, tools: [{ functionDeclarations: [{ name: weatherTool.name, description: weatherTool.description, parametersJsonSchema: weatherTool.parameters }] }] } };
    let parts: any[];
    if (stream) {
      parts = [];
      for await (const chunk of await fixture.gemini.models.generateContentStream(params)) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    } else parts = (await fixture.gemini.models.generateContent(params)).candidates![0]!.content!.parts!;
    const call = parts.find((p) => p.functionCall !== undefined)!;
    fixture.upstream.enqueue(anthropicWhole({ text: 'Sunny', stop: 'stop', usage: { input: 1, output: 1 } }));
    await fixture.gemini.models.generateContent({
      ...params,
      contents: [...params.contents, { role: 'model', parts }, { role: 'user', parts: [{ functionResponse: { id: call.functionCall!.id, name: 'get_weather', response: { output: 'Sunny' } } }] }],
    });
    const replayed = fixture.upstream.requests.at(-1)!.body;
    expect(replayed.messages[1].content).toEqual([
      { type: 'thinking', thinking: toolThinking.thinking!.text, signature: SIG },
      { type: 'tool_use', id: 'toolu_T1', name: 'get_weather', input: { location: 'Paris' } },
    ]);
  });

  it('anthropic client (stream) → gemini-3 upstream: the function call signature returns on the replayed functionCall', async () => {
    fixture.upstream.enqueue(geminiStream({ ...toolThinking, geminiSignatureOnCall: true, thinking: { text: 'Think.', signature: 'GEMSIG_abc' } }));
    const first = await fixture.anthropic.messages.stream({ model: M.gemini3, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 }, tools: [wTool], messages: [{ role: 'user', content: 'Weather in Paris?' }] }).finalMessage();
    const toolUse = first.content.find((b) => b.type === 'tool_use') as any;
    expect(toolUse.input).toEqual({ location: 'Paris' });
    fixture.upstream.enqueue(geminiStream({ text: 'Sunny', stop: 'stop', usage: { input: 1, output: 1 } }));
    await fixture.anthropic.messages.create({
      model: M.gemini3, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 }, tools: [wTool],
      messages: [{ role: 'user', content: 'Weather in Paris?' }, { role: 'assistant', content: first.content as any }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'Sunny' }] }],
    });
    const replayed = fixture.upstream.requests.at(-1)!.body;
    const call = replayed.contents[1].parts.find((p: any) => p.functionCall !== undefined);
    expect(call.thoughtSignature).toBe('GEMSIG_abc');
    expect(replayed.contents[2].parts[0].functionResponse).toMatchObject({ name: 'get_weather', response: { output: 'Sunny' } });
  });

  it('openai-responses client (stream) → gemini-3 upstream: the function call signature returns on the replayed functionCall', async () => {
    fixture.upstream.enqueue(geminiStream({ ...toolThinking, geminiSignatureOnCall: true, thinking: { text: 'Think.', signature: 'GEMSIG_xyz' } }));
    const tools = [{ type: 'function' as const, name: weatherTool.name, parameters: weatherTool.parameters, strict: false }];
    const first = await fixture.openai.responses.stream({ model: M.gemini3, input: 'Weather in Paris?', tools, reasoning: { effort: 'low' } }).finalResponse();
    const call = first.output.find((i) => i.type === 'function_call') as any;
    expect(JSON.parse(call.arguments)).toEqual({ location: 'Paris' });
    fixture.upstream.enqueue(geminiStream({ text: 'Sunny', stop: 'stop', usage: { input: 1, output: 1 } }));
    await fixture.openai.responses.create({ model: M.gemini3, tools, input: [{ role: 'user', content: 'Weather in Paris?' }, ...(first.output as any[]), { type: 'function_call_output', call_id: call.call_id, output: 'Sunny' }] });
    const replayed = fixture.upstream.requests.at(-1)!.body;
    const fc = replayed.contents[1].parts.find((p: any) => p.functionCall !== undefined);
    expect(fc.thoughtSignature).toBe('GEMSIG_xyz');
  });

  it.each([false, true])('anthropic client → openai-responses upstream: encrypted reasoning survives the replay (stream=%s)', async (stream) => {
    const answer: Answer = { thinking: { text: 'Summary of reasoning.', signature: 'gAAAAABencrypted==' }, text: '185', stop: 'stop', usage: { input: 10, output: 50, reasoning: 40 } };
    fixture.upstream.enqueue(stream ? responsesStream(answer) : responsesWhole(answer));
    const req = { model: M.responses, max_tokens: 4096, thinking: { type: 'enabled' as const, budget_tokens: 2048 }, messages: [{ role: 'user' as const, content: '925/5?' }] };
    const first = stream ? await fixture.anthropic.messages.stream(req).finalMessage() : await fixture.anthropic.messages.create(req);
    expect(first.content.filter((b) => b.type === 'text').map((b: any) => b.text).join('')).toBe('185');
    fixture.upstream.enqueue(responsesWhole({ text: 'ok', stop: 'stop', usage: { input: 1, output: 1 } }));
    await fixture.anthropic.messages.create({ ...req, messages: [...req.messages, { role: 'assistant', content: first.content as any }, { role: 'user', content: 'x2?' }] });
    const replayed = fixture.upstream.requests.at(-1)!.body;
    const reasoning = replayed.input.find((i: any) => i.type === 'reasoning');
    expect(reasoning?.encrypted_content).toBe('gAAAAABencrypted==');
  });

  it.each([false, true])('openai-chat client ← anthropic upstream: thinking text arrives as reasoning_content (stream=%s)', async (stream) => {
    fixture.upstream.enqueue(stream ? anthropicStream(thinkingAnswer) : anthropicWhole(thinkingAnswer));
    const body = { model: M.anthropic, messages: [{ role: 'user' as const, content: '925/5?' }], reasoning_effort: 'low' as const };
    // (The openai SDK's ChatCompletionStream overwrites unknown delta fields, so read the raw chunks.)
    let reasoning = '';
    let content = '';
    if (stream) {
      for await (const chunk of await fixture.openai.chat.completions.create({ ...body, stream: true })) {
        reasoning += (chunk.choices[0]?.delta as any)?.reasoning_content ?? '';
        content += chunk.choices[0]?.delta.content ?? '';
      }
    } else {
      const completion = await fixture.openai.chat.completions.create(body);
      reasoning = (completion.choices[0]!.message as any).reasoning_content;
      content = completion.choices[0]!.message.content ?? '';
    }
    expect(reasoning).toBe(thinkingAnswer.thinking!.text);
    expect(content).toBe('925 / 5 = 185');
  });

  it('anthropic client ← openai-chat upstream (DeepSeek-style reasoning_content, whole answer): thinking block then text', async () => {
    fixture.upstream.enqueue(chatWhole(thinkingAnswer));
    const message = await fixture.anthropic.messages.create({ model: M.chat, max_tokens: 512, messages: [{ role: 'user', content: '925/5?' }] });
    expect(message.content.map((b: any) => b.type)).toEqual(['thinking', 'text']);
  });
});
