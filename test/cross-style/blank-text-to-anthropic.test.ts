/**
 * Anthropic refuses blank text: "text content blocks must be non-empty", "… must contain non-whitespace
 * text" (a message or system prompt whose text is all whitespace) and "final assistant content cannot end
 * with trailing whitespace" (a prefill). OpenAI-compatible models often stream "\n\n" before their tool
 * calls; a client replaying that turn to Claude must not have it refused (`vendor-history-rules.ts`). Nor may
 * the gateway hand an Anthropic client an empty text block that Claude Code would replay to Claude.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';
import { tools } from './tool-wire-helpers.js';
import { validateAnthropic } from './vendor-history-rules.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

const ok = replyFor('anthropic', { text: 'Sunny in Paris.', stop: 'stop', usage: { input: 20, output: 4 } }, false);
/** A compatible Chat model's turn: a blank line, then its call. */
const blankThenCall = replyFor('openai-chat', { text: '\n\n', tools: [{ id: 'call_w1', name: 'get_weather', args: '{"city":"Paris"}' }], stop: 'tool', usage: { input: 10, output: 6 } }, false);
const sentToClaude = () => fixture.upstream.requests.at(-1)!.body;
/** The blocks Claude received, as type:text pairs, with the answered call. */
const shapeOf = (body: any) => body.messages.map((m: any) => ({ role: m.role, blocks: m.content.map((b: any) => (b.type === 'text' ? `text:${b.text}` : b.type)) }));
const expectedShape = [
  { role: 'user', blocks: ['text:Weather in Paris?'] },
  { role: 'assistant', blocks: ['tool_use'] },
  { role: 'user', blocks: ['tool_result'] },
];

describe('a turn that was only whitespace besides its tool call, replayed to Claude', () => {
  it('openai Chat client: the assistant message "\\n\\n" with its tool_calls goes without the blank text', async () => {
    fixture.upstream.enqueue(blankThenCall);
    const body: any = { model: M.chat, tools: [{ type: 'function', function: tools.weather }], messages: [{ role: 'user', content: 'Weather in Paris?' }] };
    const first = await fixture.openai.chat.completions.create(body);
    const message = first.choices[0]!.message;
    expect(message.content).toBe('\n\n');
    fixture.upstream.enqueue(ok);
    const second = await fixture.openai.chat.completions.create({ ...body, model: M.anthropic, messages: [...body.messages, message, { role: 'tool', tool_call_id: message.tool_calls![0]!.id, content: 'sunny' }] });
    expect(validateAnthropic(sentToClaude())).toEqual([]);
    expect(shapeOf(sentToClaude())).toEqual(expectedShape);
    expect(second.choices[0]!.message.content).toBe('Sunny in Paris.');
  });

  it('openai Responses client: an output_text of whitespace before the function_call goes without the blank text', async () => {
    fixture.upstream.enqueue(blankThenCall);
    const body: any = { model: M.chat, tools: [{ type: 'function', name: tools.weather.name, parameters: tools.weather.parameters, strict: false }], input: [{ role: 'user', content: 'Weather in Paris?' }] };
    const first = await fixture.openai.responses.create(body);
    expect(first.output_text).toBe('\n\n');
    const call = first.output.find((item: any) => item.type === 'function_call') as any;
    fixture.upstream.enqueue(ok);
    const second = await fixture.openai.responses.create({ ...body, model: M.anthropic, input: [...body.input, ...first.output, { type: 'function_call_output', call_id: call.call_id, output: 'sunny' }] });
    expect(validateAnthropic(sentToClaude())).toEqual([]);
    expect(shapeOf(sentToClaude())).toEqual(expectedShape);
    expect(second.output_text).toBe('Sunny in Paris.');
  });

  it('@google/genai client: a whitespace text part before the functionCall goes without the blank text', async () => {
    fixture.upstream.enqueue(blankThenCall);
    const config = { tools: [{ functionDeclarations: [{ name: tools.weather.name, description: tools.weather.description, parametersJsonSchema: tools.weather.parameters }] }] };
    const contents: any[] = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }];
    const first = await fixture.gemini.models.generateContent({ model: M.chat, config, contents });
    const turn = first.candidates![0]!.content!;
    expect(turn.parts?.[0]?.text).toBe('\n\n');
    const call = turn.parts!.find((part) => part.functionCall !== undefined)!.functionCall!;
    fixture.upstream.enqueue(ok);
    const second = await fixture.gemini.models.generateContent({ model: M.anthropic, config, contents: [...contents, turn, { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name, response: { output: 'sunny' } } }] }] });
    expect(validateAnthropic(sentToClaude())).toEqual([]);
    expect(shapeOf(sentToClaude())).toEqual(expectedShape);
    expect(second.text).toBe('Sunny in Paris.');
  });
});

describe('blank system prompts and prefills from an openai Chat client', () => {
  it('a whitespace system prompt and a whitespace text part beside the question are left out', async () => {
    fixture.upstream.enqueue(ok);
    await fixture.openai.chat.completions.create({
      model: M.anthropic,
      messages: [
        { role: 'system', content: ' \n' },
        { role: 'user', content: [{ type: 'text', text: '\n' }, { type: 'text', text: 'Weather in Paris?' }] },
      ],
    });
    expect(validateAnthropic(sentToClaude())).toEqual([]);
    expect(sentToClaude().system).toBeUndefined();
    expect(shapeOf(sentToClaude())).toEqual([{ role: 'user', blocks: ['text:Weather in Paris?'] }]);
  });

  it('a final assistant prefill goes without its trailing whitespace, and the log says so', async () => {
    fixture.upstream.enqueue(ok);
    await fixture.openai.chat.completions.create({
      model: M.anthropic,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: 'The weather is ' },
      ],
    });
    expect(validateAnthropic(sentToClaude())).toEqual([]);
    expect(shapeOf(sentToClaude()).at(-1)).toEqual({ role: 'assistant', blocks: ['text:The weather is'] });
    expect(JSON.stringify((await fixture.lastLog())!)).toContain('trailing whitespace of the final assistant text is not sent');
  });
});

describe('an empty output_text from a Responses upstream, read by an Anthropic client', () => {
  it.each([false, true])('is not handed on as an empty text block (stream=%s), so Claude takes the turn replayed', async (stream) => {
    fixture.upstream.enqueue(replyFor('openai-responses', { text: '', tools: [{ id: 'call_w1', name: 'get_weather', args: '{"city":"Paris"}' }], stop: 'tool', usage: { input: 10, output: 6 } }, stream));
    const body: any = { model: M.responses, max_tokens: 256, tools: [{ name: tools.weather.name, description: tools.weather.description, input_schema: tools.weather.parameters }], messages: [{ role: 'user', content: 'Weather in Paris?' }] };
    const first = stream ? await fixture.anthropic.messages.stream(body).finalMessage() : await fixture.anthropic.messages.create(body);
    expect(first.content.map((block) => block.type)).toEqual(['tool_use']);
    // Claude Code switched to a Claude model: the same history goes to Anthropic as the client holds it.
    fixture.upstream.enqueue(ok);
    const toolUse = first.content[0] as { id: string };
    await fixture.anthropic.messages.create({ ...body, model: M.anthropic, messages: [...body.messages, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'sunny' }] }] });
    expect(validateAnthropic(sentToClaude())).toEqual([]);
  });
});

describe("a Chat upstream's whitespace before its tool call, read by an Anthropic client (Claude Code)", () => {
  const body: any = { model: M.chat, max_tokens: 256, tools: [{ name: tools.weather.name, description: tools.weather.description, input_schema: tools.weather.parameters }], messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }] };
  const callAfter = (text: string[]) => (stream: boolean) =>
    replyFor('openai-chat', { text, tools: [{ id: 'call_w1', name: 'get_weather', args: '{"city":"Paris"}' }], stop: 'tool', usage: { input: 10, output: 6 } }, stream);

  /** Streams through the SDK, keeping the raw events beside the accumulated message. */
  async function streamed() {
    const stream = fixture.anthropic.messages.stream(body);
    const events: any[] = [];
    stream.on('streamEvent', (event) => events.push(event));
    const message = await stream.finalMessage();
    return { message, events };
  }

  it.each([false, true])('is no text block (stream=%s), and the history replayed to Claude is answered', async (stream) => {
    fixture.upstream.enqueue(callAfter(['\n', ' \n', '\t'])(stream));
    const first = stream ? (await streamed()).message : await fixture.anthropic.messages.create(body);
    expect(first.content.map((block) => block.type)).toEqual(['tool_use']);
    fixture.upstream.enqueue(ok);
    const toolUse = first.content[0] as { id: string };
    const second = await fixture.anthropic.messages.create({ ...body, model: M.anthropic, messages: [...body.messages, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'sunny' }] }] });
    expect(validateAnthropic(sentToClaude())).toEqual([]);
    expect(shapeOf(sentToClaude())).toEqual(expectedShape);
    expect((second.content[0] as { text: string }).text).toBe('Sunny in Paris.');
  });

  it('streamed: block indexes stay contiguous from 0, whatever was held back', async () => {
    fixture.upstream.enqueue(callAfter(['\n\n'])(true));
    const { events } = await streamed();
    const starts = events.filter((event) => event.type === 'content_block_start').map((event) => event.index);
    expect(starts).toEqual([0]);
    expect(events.filter((event) => event.type !== 'content_block_start' && 'index' in event).every((event) => event.index === 0)).toBe(true);
  });

  it('streamed: whitespace before text is held only until the first other character, then written with it', async () => {
    fixture.upstream.enqueue(callAfter(['\n', '\n', 'Let me ', 'check.', ' '])(true));
    const { message, events } = await streamed();
    expect(message.content.map((block) => (block.type === 'text' ? `text:${block.text}` : block.type))).toEqual(['text:\n\nLet me check. ', 'tool_use']);
    const textDeltas = events.filter((event) => event.type === 'content_block_delta' && event.delta.type === 'text_delta').map((event) => event.delta.text);
    expect(textDeltas).toEqual(['\n\nLet me ', 'check.', ' ']);
  });
});
