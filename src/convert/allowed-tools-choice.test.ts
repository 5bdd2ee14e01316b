/** An allowed-tools choice (a subset of the declared tools) read from each client style and written for each upstream. */
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../canonical/canonical-request.js';
import type { Converted, InvalidWireRequest } from '../canonical/conversion.js';
import { toolNameAliases, withToolAliases } from '../relay/tool-name-aliases.js';
import { formatAnthropicMessagesRequest } from './anthropic-messages/format-anthropic-messages-request.js';
import { formatGeminiRequest } from './gemini/format-gemini-request.js';
import { parseGeminiRequest } from './gemini/parse-gemini-request.js';
import { formatOpenaiChatRequest } from './openai-chat/format-openai-chat-request.js';
import { parseOpenaiChatRequest } from './openai-chat/parse-openai-chat-request.js';
import { formatOpenaiResponsesRequest } from './openai-responses/format-openai-responses-request.js';
import { parseOpenaiResponsesRequest } from './openai-responses/parse-openai-responses-request.js';

const schema = { type: 'object', properties: {} };
const names = ['a', 'b', 'c'];
const chatTools = names.map((name) => ({ type: 'function', function: { name, parameters: schema } }));
const responsesTools = names.map((name) => ({ type: 'function', name, parameters: schema }));
const geminiTools = [{ functionDeclarations: names.map((name) => ({ name, parametersJsonSchema: schema })) }];

function parsed(result: Converted<CanonicalRequest> | InvalidWireRequest): Converted<CanonicalRequest> {
  if ('invalid' in result) throw new Error(result.message);
  return result;
}

const chatChoice = (mode: string, allowed: string[]) => ({ type: 'allowed_tools', allowed_tools: { mode, tools: allowed.map((name) => ({ type: 'function', function: { name } })) } });
const fromChat = (mode: string, allowed: string[]) =>
  parsed(parseOpenaiChatRequest({ model: 'm', messages: [{ role: 'user', content: 'q' }], tools: chatTools, tool_choice: chatChoice(mode, allowed) }));

const request: CanonicalRequest = {
  model: 'm',
  system: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }],
  tools: names.map((name) => ({ name, parameters: schema })),
  toolChoice: { type: 'allowed-tools', mode: 'required', names: ['a', 'c'] },
  stream: false,
};
const autoRequest: CanonicalRequest = { ...request, toolChoice: { type: 'allowed-tools', mode: 'auto', names: ['b'] } };
const declared = (tools: unknown) => (tools as { name?: string; function?: { name: string } }[]).map((tool) => tool.name ?? tool.function?.name);

describe('parsing an allowed-tools choice', () => {
  it('a Chat client\'s allowed_tools subset is kept with its mode', () => {
    const { value, warnings } = fromChat('required', ['a', 'c']);
    expect(value.toolChoice).toEqual({ type: 'allowed-tools', mode: 'required', names: ['a', 'c'] });
    expect(value.tools.map((tool) => tool.name)).toEqual(names);
    expect(warnings).toEqual([]);
  });

  it('a Responses client\'s allowed_tools subset is kept with its mode', () => {
    const { value, warnings } = parsed(
      parseOpenaiResponsesRequest({ model: 'm', input: 'q', tools: responsesTools, tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'b' }] } }),
    );
    expect(value.toolChoice).toEqual({ type: 'allowed-tools', mode: 'auto', names: ['b'] });
    expect(warnings).toEqual([]);
  });

  it('a Gemini client\'s several allowedFunctionNames are the subset: ANY as required, VALIDATED as auto', () => {
    const gemini = (mode: string, allowed: string[]) =>
      parsed(parseGeminiRequest({ contents: [{ role: 'user', parts: [{ text: 'q' }] }], tools: geminiTools, toolConfig: { functionCallingConfig: { mode, allowedFunctionNames: allowed } } })).value.toolChoice;
    expect(gemini('ANY', ['a', 'c'])).toEqual({ type: 'allowed-tools', mode: 'required', names: ['a', 'c'] });
    expect(gemini('VALIDATED', ['b', 'c'])).toEqual({ type: 'allowed-tools', mode: 'auto', names: ['b', 'c'] });
    expect(gemini('ANY', ['b'])).toEqual({ type: 'tool', name: 'b' });
  });

  it('a subset naming every declared tool is just its mode; undeclared names are left out and said', () => {
    expect(fromChat('auto', ['c', 'b', 'a']).value.toolChoice).toEqual({ type: 'auto' });
    const { value, warnings } = fromChat('required', ['a', 'nope']);
    expect(value.toolChoice).toEqual({ type: 'allowed-tools', mode: 'required', names: ['a'] });
    expect(warnings).toEqual(['tool_choice.allowed_tools.tools: "nope" names no declared function tool; left out of the allowed tools']);
  });
});

describe('formatting an allowed-tools choice', () => {
  it('Gemini: allowedFunctionNames with mode ANY for required; for auto, AUTO with only the allowed functions declared (AUTO ignores names, VALIDATED is a preview)', () => {
    expect(formatGeminiRequest(request, 'gemini-2.5-flash').value.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['a', 'c'] } });
    expect(declared((formatGeminiRequest(request, 'gemini-2.5-flash').value.tools as { functionDeclarations: unknown }[])[0]?.functionDeclarations)).toEqual(names);
    const auto = formatGeminiRequest(autoRequest, 'gemini-2.5-flash').value;
    expect(auto.toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(declared((auto.tools as { functionDeclarations: unknown }[])[0]?.functionDeclarations)).toEqual(['b']);
  });

  it('Responses: its native allowed_tools choice, every tool still declared', () => {
    const { value } = formatOpenaiResponsesRequest(request, 'gpt-5');
    expect(value.tool_choice).toEqual({ type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'a' }, { type: 'function', name: 'c' }] });
    expect(declared(value.tools)).toEqual(names);
  });

  it('Anthropic: only the allowed tools are declared, with the mode as the choice, and the log says so', () => {
    const { value, warnings } = formatAnthropicMessagesRequest(request, 'claude-sonnet-4-5', { defaultMaxOutputTokens: 1000 });
    expect(declared(value.tools)).toEqual(['a', 'c']);
    expect(value.tool_choice).toEqual({ type: 'any' });
    expect(warnings).toContain('tool choice allowed-tools: Anthropic has no allowed subset; only the allowed tools (a, c) are declared');
    const auto = formatAnthropicMessagesRequest({ ...autoRequest, parallelToolCalls: false }, 'claude-sonnet-4-5').value;
    expect(declared(auto.tools)).toEqual(['b']);
    expect(auto.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
  });

  it('Anthropic: a required subset is a forced choice, so thinking is not sent beside it', () => {
    const { value } = formatAnthropicMessagesRequest({ ...request, maxOutputTokens: 8000, reasoning: { budgetTokens: 2048 } }, 'claude-sonnet-4-5');
    expect(value.thinking).toBeUndefined();
  });

  it('Chat Completions: only the allowed tools are declared, with the mode as the choice', () => {
    const { value } = formatOpenaiChatRequest(request, 'gpt-4.1');
    expect(declared(value.tools)).toEqual(['a', 'c']);
    expect(value.tool_choice).toBe('required');
    expect(formatOpenaiChatRequest(autoRequest, 'gpt-4.1').value.tool_choice).toBe('auto');
  });

  it('a Chat client\'s subset reaches each converted upstream whole (parse, then format)', () => {
    const { value } = fromChat('auto', ['b', 'c']);
    const gemini = formatGeminiRequest(value, 'gemini-2.5-flash').value;
    expect(gemini.toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(declared((gemini.tools as { functionDeclarations: unknown }[])[0]?.functionDeclarations)).toEqual(['b', 'c']);
    expect(declared(formatAnthropicMessagesRequest(value, 'claude-sonnet-4-5').value.tools)).toEqual(['b', 'c']);
    expect(formatOpenaiResponsesRequest(value, 'gpt-5').value.tool_choice).toEqual({ type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'b' }, { type: 'function', name: 'c' }] });
  });

  it('aliased tool names (Gemini\'s weather.get) are aliased in the allowed subset too', () => {
    const dotted: CanonicalRequest = { ...request, tools: [...request.tools, { name: 'weather.get', parameters: schema }], toolChoice: { type: 'allowed-tools', mode: 'auto', names: ['a', 'weather.get'] } };
    const aliases = toolNameAliases(dotted);
    const alias = aliases?.toUpstream.get('weather.get');
    expect(alias).toMatch(/^weather_get_/);
    const upstream = formatOpenaiResponsesRequest(withToolAliases(dotted, aliases!), 'gpt-5').value;
    expect(upstream.tool_choice).toEqual({ type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'a' }, { type: 'function', name: alias }] });
  });
});
