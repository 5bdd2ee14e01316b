import { describe, expect, it } from 'vitest';
import { expectGolden, toPrettyJson } from '../test-support/expect-golden.js';
import { parseOpenaiChatRequest } from './parse-openai-chat-request.js';
import { readFixture } from './test-support/read-fixture.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

const cases = ['text', 'system-prompt', 'image-input', 'tool-round-trip', 'parallel-tool-calls', 'thinking'];

function parsedValue(body: unknown) {
  const parsed = parseOpenaiChatRequest(body);
  if ('invalid' in parsed) throw new Error(`refused: ${parsed.param}: ${parsed.message}`);
  return parsed;
}

describe('parseOpenaiChatRequest', () => {
  it.each(cases)('parses the %s request as its golden file says', (name) => {
    expectGolden(goldenFolder, `parse-request-${name}.json`, toPrettyJson(parseOpenaiChatRequest(readFixture(`request-${name}.json`))));
  });

  it('gives a tool result the name of the call it answers, which Gemini needs', () => {
    const { value } = parsedValue(readFixture('request-tool-round-trip.json'));
    expect(value.messages[2]).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call_weather_1', name: 'get_weather', content: [{ type: 'text', text: '{"temperature_c":18,"sky":"cloudy"}' }] }],
    });
  });

  it('merges consecutive tool messages into one tool turn', () => {
    const { value } = parsedValue(readFixture('request-parallel-tool-calls.json'));
    expect(value.messages).toHaveLength(3);
    expect(value.messages[2]?.content.map((part) => (part.type === 'tool-result' ? part.toolCallId : part.type))).toEqual([
      'call_Qm1rVbq2Xc8yZ3kLpA0sT9wE',
      'call_7hYtR4eWq1AsDf6GzXc5Vb8N',
    ]);
  });

  it('names every field it does not carry in one warning', () => {
    const { warnings } = parsedValue({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
      logprobs: true,
      metadata: { a: 'b' },
      store: null,
      stream_options: { include_usage: true },
    });
    expect(warnings).toEqual(['not carried to other API styles: logprobs, metadata']);
  });

  it('warns when a system message comes after the conversation started', () => {
    const { value, warnings } = parsedValue({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }, { role: 'system', content: 'Be brief.' }],
    });
    expect(value.system).toEqual([{ type: 'text', text: 'Be brief.' }]);
    expect(warnings).toEqual(['messages[1]: a system message after the conversation started is moved into the system prompt']);
  });

  it('reads reasoning sent back as `reasoning` (OpenRouter, vLLM) like `reasoning_content`', () => {
    const { value } = parsedValue({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Hello.', reasoning: 'Greet back.' }],
    });
    expect(value.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'reasoning', text: 'Greet back.' }, { type: 'text', text: 'Hello.' }] });
  });

  it("reads a Gemini thought signature on a replayed tool call (Google's `extra_content.google.thought_signature`) as signed reasoning right before that call", () => {
    const { value } = parsedValue({
      model: 'm',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'Think.',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' }, extra_content: { google: { thought_signature: 'GSIG1' } } },
            { id: 'c2', type: 'function', function: { name: 'g', arguments: '{}' } },
          ],
        },
      ],
    });
    expect(value.messages[1]?.content).toEqual([
      { type: 'reasoning', text: 'Think.' },
      { type: 'reasoning', text: '', signature: 'GSIG1', issuer: 'google' },
      { type: 'tool-call', id: 'c1', name: 'f', arguments: '{}' },
      { type: 'tool-call', id: 'c2', name: 'g', arguments: '{}' },
    ]);
  });

  it('carries input audio as a file part with its media type', () => {
    const { value } = parsedValue({
      model: 'gpt-4o-audio-preview',
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'mp3' } }] }],
    });
    expect(value.messages[0]?.content).toEqual([{ type: 'file', source: { kind: 'base64', mediaType: 'audio/mpeg', data: 'UklGRg==' }, mediaType: 'audio/mpeg' }]);
  });

  it('warns about what has no canonical form: strict tools, file ids, refusals, allowed_tools, unknown efforts', () => {
    const { value, warnings } = parsedValue({
      model: 'gpt-5',
      messages: [
        { role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }, { type: 'text', text: 'hi' }] },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] },
      ],
      tools: [{ type: 'function', function: { name: 'f', strict: true } }, { type: 'custom', custom: { name: 'g' } }],
      tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } },
      reasoning_effort: 'xhigh',
    });
    expect(value.tools).toEqual([{ name: 'f', parameters: { type: 'object', properties: {} } }]);
    expect(value.messages[0]?.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(value.messages[1]?.content).toEqual([{ type: 'text', text: 'No.' }]);
    expect(value.toolChoice).toEqual({ type: 'auto' });
    expect(value.reasoning).toBeUndefined();
    expect(warnings).toEqual([
      'messages[0].content[0]: file_id "file-abc" names an OpenAI upload and cannot be carried; part dropped',
      'messages[1].content[0]: a refusal has no canonical form; carried as text',
      'tools[0].strict is not carried: arguments are not guaranteed to match the schema',
      'tools[1]: a "custom" tool cannot be carried to other API styles; dropped',
      "tool_choice.allowed_tools.tools: no declared function tool is allowed; carried as tool choice 'auto' with every tool allowed",
      'reasoning_effort "xhigh" has no canonical form; the upstream default applies',
    ]);
  });

  it('prefers max_completion_tokens over the deprecated max_tokens', () => {
    const { value } = parsedValue({ model: 'o3', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10, max_completion_tokens: 20 });
    expect(value.maxOutputTokens).toBe(20);
  });

  it.each([
    [{ messages: [{ role: 'user', content: 'hi' }] }, 'model'],
    [{ model: 'gpt-4o', messages: [] }, 'messages'],
    [{ model: 'gpt-4o', messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
    [{ model: 'gpt-4o', messages: [{ role: 'robot', content: 'hi' }] }, 'messages[0].role'],
    [{ model: 'gpt-4o', messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
    [{ model: 'gpt-4o', messages: [{ role: 'user', content: [{ type: 'video', video: {} }] }] }, 'messages[0].content[0].type'],
    [{ model: 'gpt-4o', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] }, 'messages[0].content[0].image_url'],
    [{ model: 'gpt-4o', messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] }, 'messages[0].content[0]'],
    [{ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], tool_choice: 'sometimes' }, 'tool_choice'],
    [{ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_schema' } }, 'response_format.json_schema'],
    [{ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], n: 2 }, 'n'],
    [{ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], functions: [{ name: 'f' }] }, 'functions'],
    [{ model: 'gpt-4o', messages: [{ role: 'function', name: 'f', content: '1' }] }, 'messages[0]'],
    [{ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], temperature: 'hot' }, 'temperature'],
    ['not an object', ''],
  ])('refuses %j, naming %s', (body, param) => {
    const parsed = parseOpenaiChatRequest(body);
    expect(parsed).toMatchObject({ invalid: true, param });
  });
});
