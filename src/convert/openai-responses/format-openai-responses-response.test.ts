import { describe, expect, it } from 'vitest';
import { createTestContext } from '../test-support/create-test-context.js';
import { expectGolden, toPrettyJson } from '../test-support/expect-golden.js';
import { formatOpenaiResponsesResponse } from './format-openai-responses-response.js';
import { canonicalResponses } from './test-support/canonical-responses.js';

const goldenFolder = new URL('./__golden__/', import.meta.url);

function format(name: string) {
  const response = canonicalResponses[name];
  if (response === undefined) throw new Error(name);
  return formatOpenaiResponsesResponse(response, createTestContext());
}

describe('formatOpenaiResponsesResponse', () => {
  it.each(Object.keys(canonicalResponses))('matches the golden client body for %s', (name) => {
    expectGolden(goldenFolder, `format-response-${name}.json`, toPrettyJson(format(name)));
  });

  it('reports a length stop as incomplete with max_output_tokens, the last item incomplete', () => {
    const { value } = format('max-tokens');
    expect(value).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, completed_at: null });
    expect(value.output).toMatchObject([{ type: 'message', status: 'incomplete' }]);
  });

  it("carries Anthropic's thinking signature (with the thinking it signs) and redacted thinking as encrypted_content of their own reasoning items, tagged with their issuer", () => {
    const { value, warnings } = format('thinking-with-signature');
    const thinking = Buffer.from('The user asks for 2+2. That is 4.').toString('base64');
    expect(value.output).toMatchObject([
      { type: 'reasoning', encrypted_content: `thinking:anthropic:EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds:${thinking}`, summary: [{ type: 'summary_text', text: 'The user asks for 2+2. That is 4.' }] },
      { type: 'reasoning', encrypted_content: 'redacted:anthropic:EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP', summary: [] },
      { type: 'message', content: [{ type: 'output_text', text: '2 + 2 = 4.' }] },
    ]);
    expect(warnings).toEqual([]);
  });

  it('joins reasoning text and the encrypted content that followed it into one reasoning item', () => {
    const { value } = format('collected-openai-reasoning');
    expect(value.output).toMatchObject([
      { type: 'reasoning', encrypted_content: 'gAAAAABo5LKjDoneTokenMn8b3Vc5Xz7Lk9Jh1Gf3Ds5Aq7Wp9Eo2Ri4', summary: [{ type: 'summary_text', text: '**Adding two numbers**\n\nThe user asks for 2+2.' }] },
      { type: 'message' },
    ]);
    expect(value.id).toBe('resp_0c5f3e8a1b2d4c6e0068e4b2a1d3c58190a4b7c9d2e1f3a5b6');
  });

  it('reports cache reads and writes inside input_tokens', () => {
    expect(format('cache-usage').value.usage).toEqual({
      input_tokens: 2100,
      input_tokens_details: { cached_tokens: 1800, cache_write_tokens: 200 },
      output_tokens: 7,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 2107,
    });
  });

  it('warns when a finish reason has no Responses status', () => {
    const response = { ...canonicalResponses.text!, finishReason: { unified: 'other' as const, raw: 'pause_turn' } };
    expect(formatOpenaiResponsesResponse(response, createTestContext()).warnings).toEqual(['finish reason other (raw "pause_turn") has no Responses status: sent as "completed"']);
  });
});

describe('formatOpenaiResponsesResponse refusals', () => {
  it('writes a text marked refusal as a refusal content part', () => {
    const response = { ...canonicalResponses['max-tokens']!, content: [{ type: 'text' as const, text: 'I cannot help.', refusal: true as const }], finishReason: { unified: 'stop' as const, raw: 'stop' } };
    const { value } = formatOpenaiResponsesResponse(response, createTestContext());
    expect(value.output).toMatchObject([{ type: 'message', content: [{ type: 'refusal', refusal: 'I cannot help.' }] }]);
  });
});
