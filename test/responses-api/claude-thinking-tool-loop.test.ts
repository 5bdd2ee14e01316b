import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { models, startCrossStyleFixture, type CrossStyleFixture } from '../relay/cross-style-setup.js';

/**
 * An openai Responses client's tool loop on a Claude channel with thinking on, `store: false`. Claude's
 * thinking reaches the client as a reasoning item's summary, which OpenAI never verifies, so clients may
 * hand it back changed or emptied; Anthropic refuses a replayed thinking block whose text differs in any
 * way from what it returned (the fake Anthropic upstream refuses it the same way). The item's
 * `encrypted_content` carries the signed text, so turn 2 reaches Claude with the block as issued.
 */
let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
  fixture.anthropicUpstream.setOptions({ thinking: true });
});
afterAll(async () => fixture?.close());

const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', description: 'Weather of a city', strict: false, parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } }];
const question: OpenAI.Responses.ResponseInputItem = { role: 'user', content: 'Weather in Paris?' };
const settings = { model: models.anthropic, tools, store: false, reasoning: { effort: 'low' as const, summary: 'auto' as const }, include: ['reasoning.encrypted_content' as const] };
const thinkingText = 'The user greeted me. A short, friendly answer fits.';

describe('Claude thinking in an openai Responses tool loop reaches Claude as issued', () => {
  it.each([
    ['whole', false],
    ['streamed', true],
  ] as const)('%s: a replayed reasoning item whose summary was emptied or changed still gets turn 2 answered', async (_framing, streamed) => {
    const first: OpenAI.Responses.Response = streamed
      ? await fixture.openai.responses.stream({ ...settings, input: [question] }).finalResponse()
      : await fixture.openai.responses.create({ ...settings, input: [question] });
    const reasoning = first.output.find((item) => item.type === 'reasoning') as OpenAI.Responses.ResponseReasoningItem;
    const call = first.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(reasoning.summary).toEqual([{ type: 'summary_text', text: thinkingText }]);
    expect(reasoning.encrypted_content).toMatch(/^thinking:anthropic:/);
    const issuedSignature = reasoning.encrypted_content!.split(':')[2];

    for (const summary of [[], [{ type: 'summary_text' as const, text: `${thinkingText} ` }]]) {
      const second = await fixture.openai.responses.create({ ...settings, input: [question, { ...reasoning, summary }, call, { type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 21 °C' }] });
      expect(second.output_text).toBe('Hello from the fake upstream!');
      expect(fixture.anthropicUpstream.requests.at(-1)!.body.messages[1].content[0]).toEqual({ type: 'thinking', thinking: thinkingText, signature: issuedSignature });
    }
  });
});
