import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';

/**
 * From the Responses audit: OpenAI's Response object echoes the request's settings (protocols.md §8: "plus
 * the echoed request fields (instructions, tools, tool_choice, temperature, top_p, reasoning, text,
 * truncation, metadata, ...)"), and so does a converted one.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const tool = { type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false };
const params = { input: 'Weather?', instructions: 'Be brief', max_output_tokens: 321, tools: [tool], tool_choice: 'required' as const, temperature: 0.3, metadata: { ticket: 'T-1' } };

describe('the Response object echoes the request settings', () => {
  it.each(['openai-chat', 'anthropic', 'gemini'] as WireStyle[])('%s upstream, whole', async (up) => {
    fixture.primary[up].enqueue(replyFor(up, { text: 'ok', usage: { input: 10, output: 2 } }, up === 'gemini'));
    const response = await fixture.sdk.openai.responses.create({ model: modelOf[up], ...params });
    expect({
      instructions: response.instructions, max_output_tokens: response.max_output_tokens, tool_choice: response.tool_choice,
      tools: response.tools.map((t: any) => t.name), temperature: response.temperature, metadata: response.metadata,
    }).toEqual({ instructions: 'Be brief', max_output_tokens: 321, tool_choice: 'required', tools: ['get_weather'], temperature: 0.3, metadata: { ticket: 'T-1' } });
  });

  it.each(['openai-chat', 'anthropic', 'gemini'] as WireStyle[])('%s upstream, streamed (finalResponse)', async (up) => {
    fixture.primary[up].enqueue(replyFor(up, { text: 'ok', usage: { input: 10, output: 2 } }, true));
    const response = await fixture.sdk.openai.responses.stream({ model: modelOf[up], ...params }).finalResponse();
    expect({ max_output_tokens: response.max_output_tokens, tools: response.tools.map((t: any) => t.name), metadata: response.metadata }).toEqual({ max_output_tokens: 321, tools: ['get_weather'], metadata: { ticket: 'T-1' } });
  });
});
