import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import { formatAnthropicMessagesRequest } from './format-anthropic-messages-request.js';

const base: CanonicalRequest = { model: 'gpt-4o', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], tools: [], stream: false };
const weatherTool = { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

describe('formatAnthropicMessagesRequest', () => {
  it('uses the upstream model and leaves max_tokens out when the request has none', () => {
    const { value } = formatAnthropicMessagesRequest(base, 'claude-haiku-4-5');
    expect(value).toEqual({ model: 'claude-haiku-4-5', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] });
  });

  it('merges tool messages and the user message after them into one user turn, results first', () => {
    const request: CanonicalRequest = {
      ...base,
      messages: [
        { role: 'assistant', content: [{ type: 'tool-call', id: 'call_1', name: 'a', arguments: '{}' }, { type: 'tool-call', id: 'call_2', name: 'b', arguments: '' }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', content: [{ type: 'text', text: 'one' }] }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_2', content: [{ type: 'text', text: 'two' }] }] },
        { role: 'user', content: [{ type: 'text', text: 'go on' }] },
      ],
    };
    const messages = formatAnthropicMessagesRequest(request, 'claude').value.messages;
    expect(messages).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'a', input: {} }, { type: 'tool_use', id: 'call_2', name: 'b', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: 'one' }] },
          { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: 'two' }] },
          { type: 'text', text: 'go on' },
        ],
      },
    ]);
  });

  it('moves tool results before text when a user message precedes them in the same turn', () => {
    const request: CanonicalRequest = {
      ...base,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'note' }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', content: [] }] },
      ],
    };
    const [turn] = formatAnthropicMessagesRequest(request, 'claude').value.messages as { content: { type: string }[] }[];
    expect(turn?.content.map((block) => block.type)).toEqual(['tool_result', 'text']);
  });

  it('turns a data URL image into a base64 source', () => {
    const request: CanonicalRequest = { ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 'data:image/jpeg;base64,/9j/4AAQ' } }] }] };
    const [message] = formatAnthropicMessagesRequest(request, 'claude').value.messages as { content: unknown[] }[];
    expect(message?.content).toEqual([{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } }]);
  });

  it('maps tool choices and parallel tool calls to tool_choice', () => {
    const format = (request: Partial<CanonicalRequest>): unknown => formatAnthropicMessagesRequest({ ...base, tools: [weatherTool], ...request }, 'claude').value.tool_choice;
    expect(format({ toolChoice: { type: 'required' } })).toEqual({ type: 'any' });
    expect(format({ toolChoice: { type: 'tool', name: 'get_weather' }, parallelToolCalls: false })).toEqual({ type: 'tool', name: 'get_weather', disable_parallel_tool_use: true });
    expect(format({ parallelToolCalls: false })).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(format({ toolChoice: { type: 'none' } })).toEqual({ type: 'none' });
    expect(format({})).toBeUndefined();
  });

  it('gives a tool schema without a type the object type Anthropic requires', () => {
    const { value } = formatAnthropicMessagesRequest({ ...base, tools: [{ name: 'ping', parameters: {} }] }, 'claude');
    expect(value.tools).toEqual([{ name: 'ping', input_schema: { type: 'object' } }]);
  });

  describe('reasoning', () => {
    const thinking = (request: Partial<CanonicalRequest>): { thinking: unknown; warnings: string[] } => {
      const result = formatAnthropicMessagesRequest({ ...base, ...request }, 'claude');
      return { thinking: result.value.thinking, warnings: result.warnings };
    };

    it('sends no thinking to Claude 3.5 and older, which refuse it, unless the channel says the model takes it', () => {
      const request = { ...base, reasoning: { budgetTokens: 2048 }, temperature: 0.2 };
      const old = formatAnthropicMessagesRequest(request, 'claude-3-5-sonnet-20241022');
      expect(old.value).not.toHaveProperty('thinking');
      expect(old.value.temperature).toBe(0.2);
      expect(old.warnings).toContain('thinking is not sent: claude-3-5-sonnet-20241022 has no extended thinking (channel setting reasoning_effort)');
      expect(formatAnthropicMessagesRequest({ ...base, reasoning: { budgetTokens: 0 } }, 'claude-3-haiku-20240307').value).not.toHaveProperty('thinking');
      expect(formatAnthropicMessagesRequest(request, 'claude-sonnet-4-20250514').value.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
      expect(formatAnthropicMessagesRequest(request, 'claude-3-5-sonnet-20241022', { reasoningEffortSetting: true }).value.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
      expect(formatAnthropicMessagesRequest(request, 'claude-sonnet-4-5', { reasoningEffortSetting: false }).value).not.toHaveProperty('thinking');
    });

    it('sends a budget as enabled thinking', () => {
      expect(thinking({ reasoning: { budgetTokens: 2048 } }).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    });

    it('sends a zero budget as disabled thinking', () => {
      expect(thinking({ reasoning: { budgetTokens: 0 } }).thinking).toEqual({ type: 'disabled' });
    });

    it('turns an effort into a budget, with a warning', () => {
      const result = thinking({ reasoning: { effort: 'low' } });
      expect(result.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
      expect(result.warnings).toEqual(["reasoning effort 'low' sent as a thinking budget of 2048 tokens"]);
    });

    it('raises a budget below 1024 to the minimum and keeps it below max_tokens', () => {
      expect(thinking({ reasoning: { budgetTokens: 100 } }).thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
      expect(thinking({ reasoning: { budgetTokens: 8000 }, maxOutputTokens: 4000 }).thinking).toEqual({ type: 'enabled', budget_tokens: 3999 });
    });

    it('leaves thinking out when max_tokens leaves no room for the minimum budget', () => {
      expect(thinking({ reasoning: { budgetTokens: 2048 }, maxOutputTokens: 1000 }).thinking).toBeUndefined();
    });

    describe('without a client max_tokens, under the default the relay passes (which the reservation covers)', () => {
      const underDefault = (reasoning: CanonicalRequest['reasoning'], defaultMaxOutputTokens: number) => {
        const result = formatAnthropicMessagesRequest({ ...base, reasoning }, 'claude', { defaultMaxOutputTokens });
        return { maxTokens: result.value.max_tokens, thinking: result.value.thinking, warnings: result.warnings };
      };

      it('sends the default as max_tokens, never raised for thinking, and fits the budget to leave 1024 for the answer', () => {
        expect(underDefault({ effort: 'high' }, 4096)).toEqual({
          maxTokens: 4096,
          thinking: { type: 'enabled', budget_tokens: 3072 },
          warnings: ["reasoning effort 'high' sent as a thinking budget of 8192 tokens", 'thinking budget 8192 lowered to 3072 (to leave 1024 of max_tokens 4096 for the answer)'],
        });
        expect(underDefault({ effort: 'medium' }, 4096)).toMatchObject({ maxTokens: 4096, thinking: { type: 'enabled', budget_tokens: 3072 } });
      });

      it('keeps a budget that already leaves 1024 for the answer', () => {
        expect(underDefault({ effort: 'low' }, 4096)).toMatchObject({ maxTokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } });
        expect(underDefault({ effort: 'high' }, 16000)).toMatchObject({ maxTokens: 16000, thinking: { type: 'enabled', budget_tokens: 8192 } });
      });

      it('lowers the budget to max_tokens − 1 when leaving 1024 would go below the minimum budget', () => {
        const result = underDefault({ budgetTokens: 3000 }, 1500);
        expect(result).toMatchObject({ maxTokens: 1500, thinking: { type: 'enabled', budget_tokens: 1499 } });
        expect(result.warnings).toEqual(['thinking budget 3000 lowered to 1499 (Anthropic requires it below max_tokens)']);
        expect(underDefault({ budgetTokens: 1024 }, 1500)).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 }, warnings: [] });
      });

      it('leaves thinking out when max_tokens − 1 is below the minimum budget', () => {
        const result = underDefault({ effort: 'medium' }, 1024);
        expect(result).toMatchObject({ maxTokens: 1024, thinking: undefined });
        expect(result.warnings).toContain("thinking not sent: max_tokens 1024 leaves no room for Anthropic's minimum budget of 1024");
      });

      it("lets the client's own max_tokens win over the default, lowering the budget only below it", () => {
        const result = formatAnthropicMessagesRequest({ ...base, reasoning: { effort: 'high' }, maxOutputTokens: 8500 }, 'claude', { defaultMaxOutputTokens: 4096 });
        expect({ maxTokens: result.value.max_tokens, thinking: result.value.thinking }).toEqual({ maxTokens: 8500, thinking: { type: 'enabled', budget_tokens: 8192 } });
      });
    });

    it('leaves thinking out when a tool is forced, since Anthropic refuses both together', () => {
      const result = thinking({ reasoning: { budgetTokens: 2048 }, tools: [weatherTool], toolChoice: { type: 'required' } });
      expect(result.thinking).toBeUndefined();
      expect(result.warnings).toEqual(["thinking not sent: Anthropic refuses it with tool choice 'required'"]);
    });

    describe('in a tool loop whose assistant turn lost its signed thinking', () => {
      const loop = (assistant: CanonicalRequest['messages'][number]): CanonicalRequest => ({
        ...base,
        tools: [weatherTool],
        reasoning: { effort: 'low' },
        temperature: 0.5,
        maxOutputTokens: 4096,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
          assistant,
          { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_1', content: [{ type: 'text', text: 'sunny' }] }] },
        ],
      });
      const call = { type: 'tool-call' as const, id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' };

      it('leaves thinking out (Anthropic requires that turn to start with thinking), with a warning, max_tokens kept', () => {
        // An OpenAI Chat client hands back reasoning_content without the signature: it cannot be replayed.
        const result = formatAnthropicMessagesRequest(loop({ role: 'assistant', content: [{ type: 'reasoning', text: 'I need the weather.' }, call] }), 'claude');
        expect(result.value.thinking).toBeUndefined();
        expect(result.value.max_tokens).toBe(4096);
        // Without thinking, the sampling settings it refused are sent again.
        expect(result.value.temperature).toBe(0.5);
        expect(result.warnings).toContain('thinking not sent: the assistant turn whose tool calls this request answers has no signed thinking to replay, which Anthropic requires with thinking on');
      });

      it('keeps thinking when that turn starts with signed or redacted thinking', () => {
        const signed = formatAnthropicMessagesRequest(loop({ role: 'assistant', content: [{ type: 'reasoning', text: 'Hm.', signature: 'SIG' }, call] }), 'claude');
        expect(signed.value.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
        const redacted = formatAnthropicMessagesRequest(loop({ role: 'assistant', content: [{ type: 'reasoning', text: '', redactedData: 'RED' }, call] }), 'claude');
        expect(redacted.value.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
      });

      it('keeps thinking when the request starts a new turn (it ends on a user text, not on tool results)', () => {
        const request = loop({ role: 'assistant', content: [call] });
        const result = formatAnthropicMessagesRequest({ ...request, messages: [...request.messages, { role: 'assistant', content: [{ type: 'text', text: 'Sunny.' }] }, { role: 'user', content: [{ type: 'text', text: 'Thanks' }] }] }, 'claude');
        expect(result.value.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
      });
    });

    it('drops temperature, top_k and a low top_p when thinking is on', () => {
      const result = formatAnthropicMessagesRequest({ ...base, reasoning: { budgetTokens: 2048 }, temperature: 0.2, topK: 5, topP: 0.5 }, 'claude');
      expect(result.value).not.toHaveProperty('temperature');
      expect(result.value).not.toHaveProperty('top_k');
      expect(result.value).not.toHaveProperty('top_p');
      expect(result.warnings).toHaveLength(3);
    });
  });

  it('sends a json_schema response format as output_config.format, in the JSON Schema subset Anthropic takes', () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' }, n: { type: 'integer', maximum: 9 } } };
    const { value, warnings } = formatAnthropicMessagesRequest({ ...base, responseFormat: { type: 'json_schema', schema } }, 'claude');
    expect(value.output_config).toEqual({
      format: { type: 'json_schema', schema: { type: 'object', properties: { ok: { type: 'boolean' }, n: { type: 'integer', description: '{maximum: 9}' } }, additionalProperties: false } },
    });
    expect(warnings).toContain('output schema: maximum moved into descriptions (Anthropic refuses them)');
  });

  it('drops an assistant message left empty, with a warning', () => {
    const request: CanonicalRequest = { ...base, messages: [...base.messages, { role: 'assistant', content: [{ type: 'reasoning', text: 'unsigned' }] }] };
    const result = formatAnthropicMessagesRequest(request, 'claude');
    expect(result.value.messages).toHaveLength(1);
    expect(result.warnings).toEqual([
      'messages.1.content.0: reasoning without a signature cannot be replayed to Anthropic: dropped',
      'messages.1: nothing left to send in this assistant message: dropped',
    ]);
  });

  it('reports the text of each reasoning part it does not send, for the local count to leave out', () => {
    const request: CanonicalRequest = {
      ...base,
      messages: [
        base.messages[0]!,
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Gemini thought.', signature: 'CiQB', issuer: 'google' },
            { type: 'reasoning', text: 'Unsigned thought.' },
            { type: 'reasoning', text: 'Summary beside redacted.', redactedData: 'EmwK', issuer: 'anthropic' },
            { type: 'reasoning', text: '', signature: 'CiQC', issuer: 'google' },
            { type: 'reasoning', text: 'Claude thought.', signature: 'EqQB', issuer: 'anthropic' },
            { type: 'text', text: 'Done.' },
          ],
        },
      ],
    };
    const { value, unsentReasoningTexts } = formatAnthropicMessagesRequest(request, 'claude');
    expect(unsentReasoningTexts).toEqual(['Gemini thought.', 'Unsigned thought.', 'Summary beside redacted.']);
    expect((value.messages as { content: unknown[] }[])[1]?.content).toEqual([
      { type: 'redacted_thinking', data: 'EmwK' },
      { type: 'thinking', thinking: 'Claude thought.', signature: 'EqQB' },
      { type: 'text', text: 'Done.' },
    ]);
  });
});
