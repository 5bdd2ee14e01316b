import { describe, expect, it } from 'vitest';
import { withoutForeignReasoning } from './without-foreign-reasoning.js';

const raw = Buffer.from('{}');
const toolTurn = (assistant: unknown[]) => ({
  model: 'claude',
  thinking: { type: 'enabled', budget_tokens: 1024 },
  messages: [
    { role: 'user', content: 'Weather?' },
    { role: 'assistant', content: [...assistant, { type: 'tool_use', id: 'toolu_1', name: 'w', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
  ],
});

describe('withoutForeignReasoning', () => {
  it("keeps the client's bytes when every signature is the channel vendor's own", () => {
    const warnings: string[] = [];
    const body = toolTurn([{ type: 'thinking', thinking: 'x', signature: 'EqQB' }]);
    expect(withoutForeignReasoning('anthropic-messages', body, raw, warnings)()).toEqual({ body, rawBody: raw });
    expect(warnings).toEqual([]);
  });

  it.each<[Parameters<typeof withoutForeignReasoning>[0], Record<string, unknown>, (body: any) => unknown, unknown]>([
    ['gemini', { contents: [{ role: 'model', parts: [{ functionCall: { name: 'w', args: {} }, thoughtSignature: 'signature:google:CiQB' }, { text: 'ok', thoughtSignature: 'signature:CiQC' }] }] }, (body) => body.contents[0].parts.map((part: any) => part.thoughtSignature), ['CiQB', 'CiQC']],
    ['openai-chat', { messages: [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'w', arguments: '{}' }, extra_content: { google: { thought_signature: 'signature:google:CiQB' } } }] }] }, (body) => body.messages[0].tool_calls[0].extra_content.google.thought_signature, 'CiQB'],
    ['anthropic-messages', toolTurn([{ type: 'thinking', thinking: 'x', signature: 'signature:anthropic:EqQB' }, { type: 'redacted_thinking', data: 'redacted:anthropic:EmwK' }]), (body) => [body.messages[1].content[0].signature, body.messages[1].content[1].data, body.thinking], ['EqQB', 'EmwK', { type: 'enabled', budget_tokens: 1024 }]],
    ['openai-responses', { input: [{ type: 'reasoning', id: 'rs', summary: [], encrypted_content: 'redacted:openai:gAAAAABx' }] }, (body) => body.input[0].encrypted_content, 'gAAAAABx'],
    // Claude's signature with the text it signs (as a Gemini client is given it): the block gets that text back.
    ['anthropic-messages', toolTurn([{ type: 'thinking', thinking: 'edited', signature: `thinking:anthropic:EqQB:${Buffer.from('Signed thought.').toString('base64')}` }]), (body) => body.messages[1].content[0], { type: 'thinking', thinking: 'Signed thought.', signature: 'EqQB' }],
  ])("sends the %s channel its own vendor's value without the gateway's tag, with no warning", (style, body, read, expected) => {
    const warnings: string[] = [];
    const source = withoutForeignReasoning(style, body, raw, warnings)();
    expect(source.rawBody).toBeUndefined();
    expect(read(source.body)).toEqual(expected);
    expect(warnings).toEqual([]);
  });

  it("drops another vendor's thinking for an Anthropic channel, and thinking with it when the tool turn is left without, warning once", () => {
    const warnings: string[] = [];
    const source = withoutForeignReasoning('anthropic-messages', toolTurn([{ type: 'thinking', thinking: 'x', signature: 'signature:google:CiQB' }]), raw, warnings);
    const { body, rawBody } = source();
    source();
    expect(rawBody).toBeUndefined();
    expect(body.thinking).toBeUndefined();
    expect((body.messages as any[])[1].content.map((block: any) => block.type)).toEqual(['tool_use']);
    expect(warnings).toEqual([
      'messages.1.content.0: reasoning signed by google cannot be verified by Anthropic: dropped',
      'thinking not sent: the assistant turn whose tool calls this request answers has no signed thinking to replay, which Anthropic requires with thinking on',
    ]);
  });

  it("replaces another vendor's signature on a Gemini function call with Google's stand-in, and drops it elsewhere", () => {
    const warnings: string[] = [];
    const body = { contents: [{ role: 'model', parts: [{ text: '', thoughtSignature: 'redacted:anthropic:EmwK' }, { functionCall: { name: 'w', args: {} }, thoughtSignature: 'signature:anthropic:EqQB' }, { text: 'ok', thoughtSignature: 'CiQB' }] }] };
    const cleaned = withoutForeignReasoning('gemini', body, raw, warnings)().body as any;
    expect(cleaned.contents[0].parts).toEqual([{ text: '' }, { functionCall: { name: 'w', args: {} }, thoughtSignature: 'skip_thought_signature_validator' }, { text: 'ok', thoughtSignature: 'CiQB' }]);
    expect(warnings).toHaveLength(2);
  });

  it("drops reasoning items OpenAI did not encrypt for a Responses channel, keeping its own", () => {
    const warnings: string[] = [];
    const body = { input: [{ type: 'reasoning', encrypted_content: 'signature:anthropic:EqQB' }, { type: 'reasoning', encrypted_content: 'gAAAAABenc' }, { type: 'reasoning', encrypted_content: 'redacted:anthropic:EmwK' }] };
    const cleaned = withoutForeignReasoning('openai-responses', body, raw, warnings)().body as any;
    expect(cleaned.input).toEqual([{ type: 'reasoning', encrypted_content: 'gAAAAABenc' }]);
    expect(warnings).toEqual(['input[0]: reasoning signed by anthropic cannot be verified by OpenAI: dropped', 'input[2]: reasoning encrypted by anthropic cannot be verified by OpenAI: dropped']);
  });
  it("puts Google's stand-in for another vendor's thought signature on a Chat tool call, keeping Google's own and the other messages as they were", () => {
    const warnings: string[] = [];
    const call = (id: string, signature: string) => ({ id, type: 'function', function: { name: 'w', arguments: '{}' }, extra_content: { google: { thought_signature: signature } } });
    const user = { role: 'user', content: 'Weather?' };
    const body = { messages: [user, { role: 'assistant', content: null, tool_calls: [call('a', 'redacted:openai:gAAAAABenc'), call('b', 'CiQB')] }, { role: 'assistant', content: null, tool_calls: [call('c', 'signature:anthropic:EqQB')] }] };
    const cleaned = withoutForeignReasoning('openai-chat', body, raw, warnings)();
    expect(cleaned.rawBody).toBeUndefined();
    expect(cleaned.body.messages).toEqual([user, { role: 'assistant', content: null, tool_calls: [call('a', 'skip_thought_signature_validator'), call('b', 'CiQB')] }, { role: 'assistant', content: null, tool_calls: [call('c', 'skip_thought_signature_validator')] }]);
    expect((cleaned.body.messages as unknown[])[0]).toBe(user);
    expect(warnings).toEqual([
      'messages[1].tool_calls[0]: a thought signature issued by openai cannot be verified by Google: dropped',
      'messages[2].tool_calls[0]: a thought signature issued by anthropic cannot be verified by Google: dropped',
    ]);
    const own = { messages: [user, { role: 'assistant', content: null, tool_calls: [call('b', 'CiQB'), { id: 'd', type: 'function', function: { name: 'w', arguments: '{}' } }] }] };
    expect(withoutForeignReasoning('openai-chat', own, raw, [])()).toEqual({ body: own, rawBody: raw });
  });
});
