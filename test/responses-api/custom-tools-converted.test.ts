/**
 * A Responses client's custom tools (Codex CLI's freeform `apply_patch`, a Lark grammar) on converted
 * channels: each upstream gets a function taking the text in one string `input`, the grammar in its
 * description; the model's call comes back to the client as a `custom_tool_call` (streamed as
 * `response.custom_tool_call_input.delta` / `.done`), a call of any other tool as a `function_call`; the
 * client's `custom_tool_call_output` reaches the upstream as that call's result on the next turn.
 */
import type { Response, ResponseCustomToolCall, ResponseFunctionToolCall, ResponseInputItem } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { modelOf, startCrossStyleFixture, type CrossStyleFixture } from '../cross-style/harness.js';
import { tools as wireTools } from '../cross-style/tool-wire-helpers.js';
import { validateAnthropic, validateChat, validateGemini } from '../cross-style/vendor-history-rules.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

const grammar = 'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\nend_patch: "*** End Patch" LF?';
/** The text apply_patch takes: newlines, quotes, a backslash, non-ASCII and an emoji. */
const patch = '*** Begin Patch\n*** Update File: src/greet.ts\n@@\n-const hello = "helo\\n";\n+const hello = "héllo 👋\\n";\n*** End Patch\n';
const clientTools: any[] = [
  { type: 'custom', name: 'apply_patch', description: 'Use the `apply_patch` tool to edit files.', format: { type: 'grammar', syntax: 'lark', definition: grammar } },
  { type: 'function', name: wireTools.weather.name, description: wireTools.weather.description, parameters: wireTools.weather.parameters, strict: false },
];
const question: ResponseInputItem[] = [{ role: 'user', content: 'Fix the typo in greet.ts, and tell me the weather in Paris.' }];
const calls = [
  { id: 'call_patch1', name: 'apply_patch', args: JSON.stringify({ input: patch }) },
  { id: 'call_w1', name: 'get_weather', args: '{"city":"Paris"}' },
];
const upstreams: Exclude<WireStyle, 'openai-responses'>[] = ['anthropic', 'gemini', 'openai-chat'];

/** The function each upstream was offered for apply_patch: its description and argument schema. */
function offeredPatchTool(up: WireStyle, body: any): { description: string; parameters: any } {
  if (up === 'anthropic') {
    const tool = body.tools.find((each: any) => each.name === 'apply_patch');
    return { description: tool.description, parameters: tool.input_schema };
  }
  if (up === 'gemini') {
    const tool = body.tools.flatMap((each: any) => each.functionDeclarations ?? []).find((each: any) => each.name === 'apply_patch');
    return { description: tool.description, parameters: tool.parametersJsonSchema ?? tool.parameters };
  }
  const tool = body.tools.find((each: any) => each.function.name === 'apply_patch');
  return { description: tool.function.description, parameters: tool.function.parameters };
}

/** The result the upstream got for the apply_patch call on turn 2, and the call's arguments as replayed. */
function replayedPatchTurn(up: WireStyle, body: any): { arguments: unknown; result: string } {
  if (up === 'anthropic') {
    const use = body.messages.flatMap((m: any) => m.content).find((block: any) => block.type === 'tool_use' && block.name === 'apply_patch');
    const result = body.messages.flatMap((m: any) => m.content).find((block: any) => block.type === 'tool_result' && block.tool_use_id === use.id);
    return { arguments: use.input, result: typeof result.content === 'string' ? result.content : result.content.map((part: any) => part.text).join('') };
  }
  if (up === 'gemini') {
    const parts = body.contents.flatMap((content: any) => content.parts);
    const call = parts.find((part: any) => part.functionCall?.name === 'apply_patch').functionCall;
    const response = parts.find((part: any) => part.functionResponse?.name === 'apply_patch').functionResponse;
    return { arguments: call.args, result: JSON.stringify(response.response) };
  }
  const call = body.messages.flatMap((m: any) => m.tool_calls ?? []).find((each: any) => each.function.name === 'apply_patch');
  const result = body.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === call.id);
  return { arguments: JSON.parse(call.function.arguments), result: typeof result.content === 'string' ? result.content : result.content.map((part: any) => part.text).join('') };
}

function historyViolations(up: WireStyle, body: any): string[] {
  return up === 'anthropic' ? validateAnthropic(body) : up === 'gemini' ? validateGemini(body, 'contents') : validateChat(body);
}

describe('custom tools from a Responses client on converted channels', () => {
  it.each(upstreams.flatMap((up) => [false, true].map((stream) => ({ up, stream }))))('$up upstream (stream=$stream): call, then the output replayed', async ({ up, stream }) => {
    const model = modelOf[up];
    fixture.upstream.enqueue(replyFor(up, { tools: calls, stop: 'tool', usage: { input: 40, output: 30 } }, stream));
    const body = { model, tools: clientTools, input: question };
    const deltas: string[] = [];
    const done: string[] = [];
    let first: Response;
    if (stream) {
      const runner = fixture.openai.responses.stream(body);
      const events: any[] = [];
      runner.on('event', (event) => events.push(event));
      runner.on('response.custom_tool_call_input.delta', (event) => deltas.push(event.delta));
      runner.on('response.custom_tool_call_input.done', (event) => done.push(event.input));
      first = await runner.finalResponse();
      // As OpenAI streams one: added (input ""), input deltas and done on that item's id and index, then the item done.
      const added = events.find((event) => event.type === 'response.output_item.added' && event.item.type === 'custom_tool_call');
      expect(added.item).toMatchObject({ id: expect.stringMatching(/^ctc_/), name: 'apply_patch', input: '', status: 'in_progress' });
      const inputEvents = events.filter((event) => event.type.startsWith('response.custom_tool_call_input.'));
      expect(inputEvents.every((event) => event.item_id === added.item.id && event.output_index === added.output_index)).toBe(true);
      const itemDone = events.findIndex((event) => event.type === 'response.output_item.done' && event.item.id === added.item.id);
      expect(events.findIndex((event) => event.type === 'response.custom_tool_call_input.done')).toBe(itemDone - 1);
      expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    } else {
      first = await fixture.openai.responses.create(body);
    }

    const offered = offeredPatchTool(up, fixture.upstream.requests.at(-1)!.body);
    expect(offered.description).toContain('Use the `apply_patch` tool to edit files.');
    expect(offered.description).toContain(grammar);
    expect(offered.parameters).toMatchObject({ type: expect.stringMatching(/^object$/i), properties: { input: { type: expect.stringMatching(/^string$/i) } }, required: ['input'] });

    const patchCall = first.output.find((item): item is ResponseCustomToolCall => item.type === 'custom_tool_call');
    expect(patchCall).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', input: patch, status: 'completed' });
    expect(patchCall!.call_id).not.toBe('');
    if (up !== 'gemini') expect(patchCall!.call_id).toBe('call_patch1');
    const weatherCall = first.output.find((item): item is ResponseFunctionToolCall => item.type === 'function_call');
    expect(weatherCall).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(first.output.map((item) => item.type)).toEqual(['custom_tool_call', 'function_call']);
    if (stream) {
      expect(deltas.join('')).toBe(patch);
      // Gemini sends a call's arguments whole; the others in fragments, which reach the client as they come.
      if (up !== 'gemini') expect(deltas.length).toBeGreaterThan(1);
      expect(done).toEqual([patch]);
    }

    fixture.upstream.enqueue(replyFor(up, { text: 'Fixed, and it is sunny.', usage: { input: 60, output: 8 } }, stream));
    const replay: ResponseInputItem[] = [
      ...question,
      ...(first.output as ResponseInputItem[]),
      { type: 'custom_tool_call_output', call_id: patchCall!.call_id, output: 'Done! Updated src/greet.ts' },
      { type: 'function_call_output', call_id: weatherCall!.call_id, output: 'sunny' },
    ];
    const second = stream ? await fixture.openai.responses.stream({ ...body, input: replay }).finalResponse() : await fixture.openai.responses.create({ ...body, input: replay });
    expect(second.output_text).toBe('Fixed, and it is sunny.');
    const sent = fixture.upstream.requests.at(-1)!.body;
    expect(historyViolations(up, sent)).toEqual([]);
    const turn = replayedPatchTurn(up, sent);
    expect(turn.arguments).toEqual({ input: patch });
    expect(turn.result).toContain('Done! Updated src/greet.ts');
  });

  it("a call whose arguments are not {\"input\": text} hands the client the model's text as it stands, and the log says so", async () => {
    fixture.upstream.enqueue(replyFor('openai-chat', { tools: [{ id: 'call_patch2', name: 'apply_patch', args: '{"patch":"*** Begin Patch"}' }], stop: 'tool', usage: { input: 40, output: 10 } }, true));
    const answer = await fixture.openai.responses.stream({ model: modelOf['openai-chat'], tools: clientTools, input: question }).finalResponse();
    expect(answer.output).toMatchObject([{ type: 'custom_tool_call', name: 'apply_patch', input: '{"patch":"*** Begin Patch"}' }]);
    expect(JSON.stringify(await fixture.lastLog())).toContain('the arguments are not {\\"input\\": \\"<text>\\"}');
  });
});
