import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectGolden, toPrettyJson } from '../test-support/expect-golden.js';
import { parseOpenaiResponsesRequest } from './parse-openai-responses-request.js';
import { fixtureDirectory, readJson } from './test-support/read-fixture.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

const requestCases = readdirSync(fixtureDirectory)
  .filter((file) => file.startsWith('request-') && file.endsWith('.json'))
  .map((file) => file.slice('request-'.length, -'.json'.length));

function parseValid(body: unknown) {
  const parsed = parseOpenaiResponsesRequest(body);
  if ('invalid' in parsed) throw new Error(`refused: ${parsed.message}`);
  return parsed;
}

describe('parseOpenaiResponsesRequest', () => {
  it.each(requestCases)('matches the golden canonical request for %s', (name) => {
    expectGolden(goldenFolder, `parse-request-${name}.json`, toPrettyJson(parseOpenaiResponsesRequest(readJson(fixtureDirectory, `request-${name}.json`))));
  });

  it('reads a string input as one user message', () => {
    const { value } = parseValid({ model: 'gpt-4.1', input: 'Hi' });
    expect(value.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
    expect(value.stream).toBe(false);
  });

  it('puts instructions before system and developer messages in the system prompt', () => {
    const { value } = parseValid({ model: 'm', instructions: 'First.', input: [{ role: 'system', content: 'Second.' }, { role: 'user', content: 'Q' }] });
    expect(value.system).toEqual([{ type: 'text', text: 'First.' }, { type: 'text', text: 'Second.' }]);
  });

  it('names each tool result after its call and groups consecutive outputs into one tool turn', () => {
    const { value } = parseValid(readJson(fixtureDirectory, 'request-parallel-tool-calls.json'));
    const toolTurn = value.messages[2];
    expect(toolTurn?.role).toBe('tool');
    expect(toolTurn?.content.map((part) => ('name' in part ? part.name : undefined))).toEqual(['get_weather', 'get_time']);
  });

  it('returns a signature and OpenAI encrypted content each to its own field', () => {
    const { value } = parseValid(readJson(fixtureDirectory, 'request-thinking-with-signature.json'));
    const reasoning = value.messages.flatMap((message) => (message.role === 'assistant' ? message.content : [])).filter((part) => part.type === 'reasoning');
    expect(reasoning).toEqual([
      // A signature written before issuers were tagged (`signature:…`): its issuer is not known.
      { type: 'reasoning', text: 'The user asks for 2+2. That is 4.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
      { type: 'reasoning', text: '**Adding two numbers**\n\nThe user asks for 3+3.', redactedData: 'gAAAAABo5LKjDoneTokenMn8b3Vc5Xz7Lk9Jh1Gf3Ds5Aq7Wp9Eo2Ri4', issuer: 'openai' },
    ]);
  });

  it('warns about everything stateful or unsupported instead of dropping it silently', () => {
    const { warnings } = parseValid(readJson(fixtureDirectory, 'request-stateful-fields.json'));
    const text = warnings.join('\n');
    for (const expected of ['previous_response_id', 'conversation', 'store', 'item_reference', 'input_audio', 'web_search', 'verbosity', 'xhigh', 'detailed', 'top_logprobs', 'max_tool_calls']) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('metadata');
  });

  it('warns about a bare reasoning id, which only refers to OpenAI-stored reasoning', () => {
    const { value, warnings } = parseValid({ model: 'm', input: [{ role: 'user', content: 'Q' }, { type: 'reasoning', id: 'rs_1', summary: [] }, { role: 'assistant', content: 'A' }] });
    expect(value.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'A' }] });
    expect(warnings).toEqual(['input[1]: a reasoning item with neither text nor encrypted_content only refers to stored state; dropped']);
  });

  it('keeps an input whose only item is a developer message (it becomes the system prompt)', () => {
    const { value } = parseValid({ model: 'm', input: [{ role: 'developer', content: 'Say hi.' }] });
    expect({ system: value.system, messages: value.messages }).toEqual({ system: [{ type: 'text', text: 'Say hi.' }], messages: [] });
  });

  it.each([
    [{ input: 'Hi' }, 'model'],
    [{ model: 'm' }, 'input'],
    [{ model: 'm', input: 42 }, 'input'],
    [{ model: 'm', input: [{ role: 'robot', content: 'x' }] }, 'input[0].role'],
    [{ model: 'm', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }, 'input[0].call_id'],
    [{ model: 'm', input: [{ role: 'user', content: [{ type: 'input_text' }] }] }, 'input[0].content[0].text'],
    [{ model: 'm', input: [{ role: 'user', content: [{ type: 'input_image' }] }] }, 'input[0].content[0]'],
    [{ model: 'm', input: 'x', tools: [{ type: 'function' }] }, 'tools[0].name'],
    [{ model: 'm', input: 'x', tool_choice: 'sometimes' }, 'tool_choice'],
    [{ model: 'm', input: 'x', text: { format: { type: 'yaml' } } }, 'text.format.type'],
    [{ model: 'm', input: 'x', text: { format: { type: 'json_schema', name: 'a' } } }, 'text.format.schema'],
    [{ model: 'm', input: 'x', max_output_tokens: 0 }, 'max_output_tokens'],
    [{ model: 'm', input: [] }, 'input'],
    [{ model: 'm', input: [{ type: 'bogus_item', foo: 1 }] }, 'input'],
    [{ model: 'm', input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input'],
    [{ model: 'm', instructions: 'Be brief.', input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input'],
  ])('refuses %j naming %s', (body, param) => {
    const parsed = parseOpenaiResponsesRequest(body);
    expect(parsed).toMatchObject({ invalid: true, param });
  });

  it('carries a custom tool as a function taking its text in "input", the grammar in its description, chosen by name', () => {
    const grammar = 'start: begin_patch hunk+ end_patch';
    const { value, warnings } = parseValid({
      model: 'gpt-5-codex',
      input: 'Fix the bug.',
      tools: [
        { type: 'custom', name: 'apply_patch', description: 'Edit files.', format: { type: 'grammar', syntax: 'lark', definition: grammar } },
        { type: 'custom', name: 'note', format: { type: 'text' } },
      ],
      tool_choice: { type: 'custom', name: 'apply_patch' },
    });
    const parameters = { type: 'object', properties: { input: { type: 'string', description: 'The free text the tool takes, whole.' } }, required: ['input'] };
    expect(value.tools).toEqual([
      { name: 'apply_patch', description: expect.stringContaining(`The text must match this lark grammar:\n${grammar}`), parameters },
      { name: 'note', description: 'This tool takes free text, not JSON: pass the whole text as the string "input".', parameters },
    ]);
    expect(value.tools[0]?.description?.startsWith('Edit files.\n\nThis tool takes free text')).toBe(true);
    expect(value.toolChoice).toEqual({ type: 'tool', name: 'apply_patch' });
    expect(warnings).toEqual(['tools[0]: custom tool "apply_patch" is carried as a function taking its text in "input"; its lark format is described to the model, not enforced']);
  });
});

