import { describe, expect, it } from 'vitest';
import { collectDroppedAnthropicPromptText } from './collect-dropped-anthropic-prompt-text.js';

const user = (...content: unknown[]) => ({ role: 'user', content });
const assistant = (...content: unknown[]) => ({ role: 'assistant', content });
const texts = (messages: unknown[]) => collectDroppedAnthropicPromptText({ messages }).texts.join('\n');

describe('collectDroppedAnthropicPromptText', () => {
  it('reads nothing from the blocks the canonical parser carries', () => {
    const messages = [
      { role: 'user', content: 'plain' },
      user(
        { type: 'text', text: 'carried' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'carried doc' } },
        { type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'result' }] },
        { type: 'tool_result', tool_use_id: 't', content: 'string result' },
      ),
      assistant({ type: 'text', text: 'a' }, { type: 'thinking', thinking: 'b', signature: 's' }, { type: 'redacted_thinking', data: 'xx' }, { type: 'tool_use', id: 't', name: 'n', input: { q: 1 } }),
    ];
    expect(collectDroppedAnthropicPromptText({ messages })).toEqual({ texts: [], extraTokens: 0, imageTokens: 0 });
  });

  it('reads a user search_result block: its title, source and content text', () => {
    const messages = [user({ type: 'search_result', source: 'https://example.com/a', title: 'A title', content: [{ type: 'text', text: 'the page' }], citations: { enabled: true } })];
    expect(texts(messages)).toBe('https://example.com/a\nA title\nthe page');
  });

  it('reads search_result blocks inside a tool_result, not its carried text', () => {
    const messages = [user({ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'carried' }, { type: 'search_result', source: 's', title: 't', content: [{ type: 'text', text: 'found' }] }] })];
    expect(texts(messages)).toBe('s\nt\nfound');
  });

  it('reads a document with a content source as its text, its images at the flat figure', () => {
    const messages = [user({ type: 'document', title: 'Doc', source: { type: 'content', content: [{ type: 'text', text: 'first' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] } })];
    expect(collectDroppedAnthropicPromptText({ messages })).toEqual({ texts: ['first\nDoc'], extraTokens: 0, imageTokens: 1000 });
  });

  it('counts a document or an image given by file_id at the flat 1,000 (images as image tokens)', () => {
    const messages = [user({ type: 'document', source: { type: 'file', file_id: 'file_1' } }, { type: 'image', source: { type: 'file', file_id: 'file_2' } })];
    expect(collectDroppedAnthropicPromptText({ messages })).toEqual({ texts: [], extraTokens: 1000, imageTokens: 1000 });
  });

  it("reads a carried document's context (the parser drops it)", () => {
    const messages = [user({ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' }, context: 'background' })];
    expect(texts(messages)).toBe('background');
  });

  it('reads assistant server-tool blocks: the query, the results, an encrypted page at a token per 4 characters', () => {
    const messages = [
      assistant(
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'weather' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://w.example', title: 'Weather', encrypted_content: 'E'.repeat(4000), page_age: null }] },
        { type: 'text', text: 'carried' },
      ),
    ];
    expect(collectDroppedAnthropicPromptText({ messages })).toEqual({ texts: ['web_search\nweather\nhttps://w.example\nWeather'], extraTokens: 1000, imageTokens: 0 });
  });

  it('reads a web_fetch result document given as text', () => {
    const messages = [assistant({ type: 'web_fetch_tool_result', tool_use_id: 'x', content: { type: 'web_fetch_result', url: 'u', content: { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'page text' } } } })];
    expect(texts(messages)).toBe('u\npage text');
  });

  it('ignores what is not a message or a block', () => {
    expect(collectDroppedAnthropicPromptText({})).toEqual({ texts: [], extraTokens: 0, imageTokens: 0 });
    expect(collectDroppedAnthropicPromptText({ messages: [null, 'x', { role: 'user', content: [null, 3] }] })).toEqual({ texts: [], extraTokens: 0, imageTokens: 0 });
  });

  it('reads nothing from the carried definitions: custom tools, system, tool_choice, settings', () => {
    const body = {
      model: 'claude', max_tokens: 16, stream: true, temperature: 0.5, system: 'sys', metadata: { user_id: 'u' },
      tools: [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }, { type: 'custom', name: 'c', input_schema: {} }],
      tool_choice: { type: 'auto' }, thinking: { type: 'enabled', budget_tokens: 1024 }, output_config: { effort: 'high' },
      messages: [{ role: 'user', content: 'hi' }],
    };
    expect(collectDroppedAnthropicPromptText(body)).toEqual({ texts: [], extraTokens: 0, imageTokens: 0 });
  });

  it('reads a server tool whole, as JSON, without its cache mark', () => {
    const tool = { type: 'web_search_20250305', name: 'web_search', allowed_domains: ['a.example', 'b.example'], cache_control: { type: 'ephemeral' } };
    expect(collectDroppedAnthropicPromptText({ tools: [tool] }).texts).toEqual(['{"type":"web_search_20250305","name":"web_search","allowed_domains":["a.example","b.example"]}']);
  });

  it("reads a custom tool's uncarried fields (input_examples), not its carried ones", () => {
    const tool = { name: 'n', description: 'd', input_schema: {}, input_examples: [{ city: 'Paris' }] };
    expect(collectDroppedAnthropicPromptText({ tools: [tool] }).texts).toEqual(['[{"city":"Paris"}]']);
  });

  it('reads the uncarried top-level fields (mcp_servers) without the MCP credential', () => {
    const body = { model: 'm', mcp_servers: [{ type: 'url', url: 'https://mcp.example/sse', name: 'docs', authorization_token: 'secret-token', tool_configuration: { allowed_tools: ['search_docs'] } }] };
    expect(collectDroppedAnthropicPromptText(body).texts).toEqual(['[{"type":"url","url":"https://mcp.example/sse","name":"docs","tool_configuration":{"allowed_tools":["search_docs"]}}]']);
  });
});
