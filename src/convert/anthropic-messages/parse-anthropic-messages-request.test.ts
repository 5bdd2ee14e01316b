import { describe, expect, it } from 'vitest';
import type { Converted, InvalidWireRequest } from '../../canonical/conversion.js';
import type { CanonicalRequest } from '../../canonical/canonical-request.js';
import { parseAnthropicMessagesRequest } from './parse-anthropic-messages-request.js';

const base = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] };

function parsed(body: unknown): Converted<CanonicalRequest> {
  const result = parseAnthropicMessagesRequest(body);
  if ('invalid' in result) throw new Error(`refused: ${result.message}`);
  return result;
}

function refused(body: unknown): InvalidWireRequest {
  const result = parseAnthropicMessagesRequest(body);
  if (!('invalid' in result)) throw new Error('accepted');
  return result;
}

describe('parseAnthropicMessagesRequest', () => {
  describe('refusals', () => {
    it('refuses a body that is not an object', () => {
      expect(refused([base])).toMatchObject({ invalid: true, param: '' });
    });

    it('refuses a request without max_tokens, as Anthropic does', () => {
      const { max_tokens: _, ...body } = base;
      expect(refused(body)).toMatchObject({ param: 'max_tokens' });
    });

    it('refuses an empty messages list', () => {
      expect(refused({ ...base, messages: [] })).toMatchObject({ param: 'messages' });
    });

    it('refuses an unknown role, naming the message', () => {
      expect(refused({ ...base, messages: [{ role: 'system', content: 'x' }] })).toMatchObject({ param: 'messages.0.role' });
    });

    it('refuses a malformed known block, naming the field at fault', () => {
      const body = { ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', data: 'AA==' } }] }] };
      expect(refused(body)).toMatchObject({ param: 'messages.0.content.0.source.media_type' });
    });

    it('refuses a tool_result without tool_use_id', () => {
      const body = { ...base, messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }] };
      expect(refused(body)).toMatchObject({ param: 'messages.0.content.0.tool_use_id' });
    });

    it('refuses enabled thinking without a budget', () => {
      expect(refused({ ...base, thinking: { type: 'enabled' } })).toMatchObject({ param: 'thinking.budget_tokens' });
    });

    it('refuses a custom tool without input_schema', () => {
      expect(refused({ ...base, tools: [{ name: 'a' }] })).toMatchObject({ param: 'tools.0.input_schema' });
    });

    it('refuses tool_choice tool without a name', () => {
      expect(refused({ ...base, tools: [{ name: 'a', input_schema: { type: 'object' } }], tool_choice: { type: 'tool' } })).toMatchObject({ param: 'tool_choice.name' });
    });
  });

  it('splits tool results out of a user turn into a tool message, keeping the text after them as a user message', () => {
    const body = {
      ...base,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' }, { type: 'text', text: 'Thanks' }] },
      ],
    };
    expect(parsed(body).value.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_1', name: 'get_weather', content: [{ type: 'text', text: 'Sunny' }] }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ]);
  });

  it('keeps a tool result without a matching tool_use, without a name', () => {
    const body = { ...base, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x' }] }] };
    expect(parsed(body).value.messages).toEqual([{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_x', content: [] }] }]);
  });

  it('maps tool_choice any to required and disable_parallel_tool_use to parallelToolCalls=false', () => {
    const body = { ...base, tools: [{ name: 'a', input_schema: { type: 'object' } }], tool_choice: { type: 'any', disable_parallel_tool_use: true } };
    const { value } = parsed(body);
    expect(value.toolChoice).toEqual({ type: 'required' });
    expect(value.parallelToolCalls).toBe(false);
  });

  it('carries a system string, sampling settings, stop sequences and the user id', () => {
    const body = { ...base, system: 'Be brief.', temperature: 0.3, top_p: 0.9, top_k: 5, stop_sequences: ['END'], metadata: { user_id: 'u1' }, stream: true };
    expect(parsed(body).value).toMatchObject({
      system: [{ type: 'text', text: 'Be brief.' }], temperature: 0.3, topP: 0.9, topK: 5, stopSequences: ['END'], user: 'u1', stream: true, maxOutputTokens: 1024,
    });
  });

  it('reads adaptive thinking and output_config.effort as one reasoning config', () => {
    const body = { ...base, thinking: { type: 'adaptive', display: 'omitted' }, output_config: { effort: 'low' } };
    expect(parsed(body).value.reasoning).toEqual({ includeThoughts: false, effort: 'low' });
  });

  it('carries thinking disabled as a budget of 0 (off), not as nothing', () => {
    expect(parsed({ ...base, thinking: { type: 'disabled' } }).value.reasoning).toEqual({ budgetTokens: 0 });
  });

  it('carries a plain-text document as text (its title first), which every upstream reads and counts as text', () => {
    const body = { ...base, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'héllo' } }, { type: 'document', title: 'Notes', source: { type: 'text', media_type: 'text/plain', data: 'a\nb' } }] }] };
    const [message] = parsed(body).value.messages;
    expect(message).toEqual({ role: 'user', content: [{ type: 'text', text: 'héllo' }, { type: 'text', text: 'Notes\n\na\nb' }] });
  });

  it('drops blocks it cannot carry with a warning naming their place', () => {
    const body = {
      ...base,
      messages: [
        { role: 'user', content: [{ type: 'search_result', source: 'x', title: 't', content: [] }, { type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }, { type: 'text', text: 'Found it.' }] },
      ],
    };
    const result = parsed(body);
    expect(result.value.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Found it.' }] },
    ]);
    expect(result.warnings).toEqual([
      "messages.0.content.0: a 'search_result' block in a user message is not carried: dropped",
      "messages.1.content.0: a 'server_tool_use' block in an assistant message is not carried: dropped",
    ]);
  });

  it('names top-level fields it does not carry in one warning', () => {
    expect(parsed({ ...base, service_tier: 'auto', mcp_servers: [] }).warnings).toEqual(['fields not carried: service_tier, mcp_servers']);
  });

  it('reports cache_control once however many blocks carry it', () => {
    const cached = { type: 'text', text: 'x', cache_control: { type: 'ephemeral' } };
    const body = { ...base, system: [cached], messages: [{ role: 'user', content: [cached, cached] }] };
    expect(parsed(body).warnings).toEqual(['cache_control breakpoints are not carried (prompt caching is left to the upstream)']);
  });
});
