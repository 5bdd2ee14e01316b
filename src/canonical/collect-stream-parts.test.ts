import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from './canonical-stream-part.js';
import { collectStreamParts } from './collect-stream-parts.js';

function scenario(name: string): CanonicalStreamPart[] {
  const text = readFileSync(new URL(`../convert/scenarios/${name}.parts.jsonl`, import.meta.url), 'utf8');
  return text.trim().split('\n').map((line) => JSON.parse(line) as CanonicalStreamPart);
}

describe('collectStreamParts', () => {
  it('joins text deltas and keeps the finish reason and usage', () => {
    const response = collectStreamParts(scenario('text'));
    expect(response).toMatchObject({ id: 'gen_text_1', model: 'test-model', content: [{ type: 'text', text: 'Hello, world!' }], finishReason: { unified: 'stop', raw: 'stop' } });
    expect(response.usage?.output.total).toBe(12);
  });

  it('assembles parallel tool calls from their fragments, in order', () => {
    const response = collectStreamParts(scenario('parallel-tool-calls'));
    expect(response.content).toEqual([
      { type: 'tool-call', id: 'call_a', name: 'get_weather', arguments: '{"location":"Paris"}' },
      { type: 'tool-call', id: 'call_b', name: 'get_time', arguments: '{"zone":"CET"}' },
    ]);
  });

  it('keeps reasoning with its signature before the answer', () => {
    const response = collectStreamParts(scenario('thinking'));
    expect(response.content).toEqual([
      { type: 'reasoning', text: 'The user asks for 2+2. That is 4.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
      { type: 'text', text: '2 + 2 = 4.' },
    ]);
    expect(response.usage?.output.reasoning).toBe(38);
  });
});
