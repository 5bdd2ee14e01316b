/**
 * `tools: []` (and a tool choice beside no tools) converted to another style. OpenAI Chat refuses an empty
 * tools array ("Invalid 'tools': empty array"; Responses, Anthropic and Gemini take one), and a choice with
 * no tools means nothing: Chat refuses any ("'tool_choice' is only allowed when 'tools' are specified"),
 * Anthropic too ("tool_choice may only be specified while providing tools."), Responses a forced one, Gemini
 * a calling config beside no function. An Anthropic, Gemini or Responses client may send either. Every
 * formatter leaves `tools` and the choice out rather than make the upstream refuse what its client sent
 * validly.
 */
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../canonical/canonical-request.js';
import type { Converted, InvalidWireRequest } from '../canonical/conversion.js';
import { formatAnthropicMessagesRequest } from './anthropic-messages/format-anthropic-messages-request.js';
import { parseAnthropicMessagesRequest } from './anthropic-messages/parse-anthropic-messages-request.js';
import { formatGeminiRequest } from './gemini/format-gemini-request.js';
import { parseGeminiRequest } from './gemini/parse-gemini-request.js';
import { formatOpenaiChatRequest } from './openai-chat/format-openai-chat-request.js';
import { parseOpenaiChatRequest } from './openai-chat/parse-openai-chat-request.js';
import { formatOpenaiResponsesRequest } from './openai-responses/format-openai-responses-request.js';
import { parseOpenaiResponsesRequest } from './openai-responses/parse-openai-responses-request.js';

function parsed(result: Converted<CanonicalRequest> | InvalidWireRequest): CanonicalRequest {
  if ('invalid' in result) throw new Error(result.message);
  return result.value;
}

type Style = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini';

const parse: Record<Style, (body: Record<string, unknown>) => CanonicalRequest> = {
  'openai-chat': (body) => parsed(parseOpenaiChatRequest({ model: 'm', messages: [{ role: 'user', content: 'q' }], ...body })),
  'openai-responses': (body) => parsed(parseOpenaiResponsesRequest({ model: 'm', input: 'q', ...body })),
  'anthropic-messages': (body) => parsed(parseAnthropicMessagesRequest({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'q' }], ...body } as never)),
  gemini: (body) => parsed(parseGeminiRequest({ contents: [{ role: 'user', parts: [{ text: 'q' }] }], ...body } as never)),
};

const format: Record<Style, (request: CanonicalRequest) => { value: Record<string, unknown>; warnings: string[] }> = {
  'openai-chat': (request) => formatOpenaiChatRequest(request, 'up'),
  'openai-responses': (request) => formatOpenaiResponsesRequest(request, 'up'),
  'anthropic-messages': (request) => formatAnthropicMessagesRequest(request, 'up'),
  gemini: (request) => formatGeminiRequest(request, 'up'),
};

/** What each client style may send with no tools: an empty array, and beside it each tool choice it has. */
const bodies: Record<Style, Record<string, unknown>[]> = {
  'anthropic-messages': [
    { tools: [] },
    { tools: [], tool_choice: { type: 'auto' } },
    { tools: [], tool_choice: { type: 'any' } },
    { tools: [], tool_choice: { type: 'none' } },
    { tools: [], tool_choice: { type: 'tool', name: 'gone' } },
    { tools: [], tool_choice: { type: 'auto', disable_parallel_tool_use: true } },
  ],
  gemini: [
    { tools: [] },
    { tools: [{ functionDeclarations: [] }] },
    { tools: [], toolConfig: { functionCallingConfig: { mode: 'AUTO' } } },
    { tools: [], toolConfig: { functionCallingConfig: { mode: 'ANY' } } },
    { tools: [], toolConfig: { functionCallingConfig: { mode: 'NONE' } } },
  ],
  'openai-chat': [{ tools: [] }, { tools: [], tool_choice: 'none' }],
  'openai-responses': [{ tools: [] }, { tools: [], tool_choice: 'auto', parallel_tool_calls: false }, { tools: [], tool_choice: 'required' }],
};

const styles = Object.keys(format) as Style[];
const toolFields = ['tools', 'tool_choice', 'parallel_tool_calls', 'toolConfig'];

describe('tools: [] converted to another style leaves tools and the tool choice out', () => {
  for (const from of styles) {
    for (const body of bodies[from]) {
      for (const to of styles.filter((style) => style !== from)) {
        it(`${from} ${JSON.stringify(body)} → ${to}`, () => {
          const request = parse[from](body);
          expect(request.tools).toEqual([]);
          const { value } = format[to](request);
          // The Responses API takes `parallel_tool_calls` without tools (Chat does not): a client's setting stays.
          const refused = to === 'openai-responses' ? toolFields.filter((field) => field !== 'parallel_tool_calls') : toolFields;
          expect(refused.filter((field) => field in value)).toEqual([]);
        });
      }
    }
  }

  it('a forced choice with no tools is named in the warnings for a Responses upstream, as for the others', () => {
    const request = parse['anthropic-messages']({ tools: [], tool_choice: { type: 'any' } });
    expect(format['openai-responses'](request).warnings).toContain("tool choice 'required' without tools is not sent");
  });

  it('declared tools still carry their choice and parallel setting to a Responses upstream', () => {
    const request = parse['anthropic-messages']({
      tools: [{ name: 'look', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    });
    const { value } = format['openai-responses'](request);
    expect(value).toMatchObject({ tool_choice: 'required', parallel_tool_calls: false });
    expect(value.tools).toHaveLength(1);
  });
});
