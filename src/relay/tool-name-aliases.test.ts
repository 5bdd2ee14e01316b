import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../canonical/canonical-request.js';
import { partWithClientToolName, responseWithClientToolNames, toolNameAliases, withToolAliases } from './tool-name-aliases.js';

const request = (overrides: Partial<CanonicalRequest>): CanonicalRequest => ({ model: 'm', system: [], messages: [], tools: [], stream: false, ...overrides });

describe('toolNameAliases', () => {
  it('needs none when every name is one OpenAI and Anthropic take', () => {
    expect(toolNameAliases(request({ tools: [{ name: 'get_weather', parameters: {} }, { name: 'x-1', parameters: {} }] }))).toBeUndefined();
  });

  it('aliases dotted, coloned and over-long names everywhere they appear, and maps calls back', () => {
    const long = `a${'b'.repeat(80)}`;
    const original = request({
      tools: [{ name: 'weather.get', parameters: {} }, { name: 'fs:read', parameters: {} }, { name: long, parameters: {} }, { name: 'plain', parameters: {} }],
      toolChoice: { type: 'tool', name: 'weather.get' },
      messages: [
        { role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'fs:read', arguments: '{}' }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', name: 'fs:read', content: [] }] },
      ],
    });
    const aliases = toolNameAliases(original);
    expect(aliases).toBeDefined();
    const sent = withToolAliases(original, aliases!);
    const names = sent.tools.map((tool) => tool.name);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(names[3]).toBe('plain');
    expect(new Set(names).size).toBe(4);
    expect(sent.toolChoice).toEqual({ type: 'tool', name: names[0] });
    expect(sent.messages[0]).toEqual({ role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: names[1], arguments: '{}' }] });
    expect(sent.messages[1]).toMatchObject({ content: [{ name: names[1] }] });
    expect(partWithClientToolName({ type: 'tool-call-start', index: 0, id: 'c2', name: names[0]! }, aliases!)).toEqual({ type: 'tool-call-start', index: 0, id: 'c2', name: 'weather.get' });
    const answer = { id: 'r', model: 'm', created: 1, content: [{ type: 'tool-call' as const, id: 'c3', name: names[2]!, arguments: '{}' }], finishReason: { unified: 'tool_calls' as const, raw: 'tool_use' }, usage: undefined };
    expect(responseWithClientToolNames(answer, aliases!).content).toEqual([{ type: 'tool-call', id: 'c3', name: long, arguments: '{}' }]);
  });

  it('keeps names apart that differ only in the characters it replaces', () => {
    const aliases = toolNameAliases(request({ tools: [{ name: 'a.b', parameters: {} }, { name: 'a:b', parameters: {} }, { name: 'a_b', parameters: {} }] }));
    expect(new Set([...aliases!.toUpstream.values(), 'a_b']).size).toBe(3);
  });
});
