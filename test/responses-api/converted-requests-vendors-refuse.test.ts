import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';

/**
 * Responses client → converted upstream (from the Responses audit): requests the vendor's documented format
 * would refuse are not built — a tool result whose call is stored upstream (previous_response_id) is a 400
 * naming input, a history with tool blocks declares its tools for Anthropic, Gemini gets no toolConfig
 * without functions — and reasoning.effort "none" turns thinking off.
 */
let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000 });
});
afterAll(async () => fixture?.close());

const converted = ['openai-chat', 'anthropic', 'gemini'] as const;
const weather = { type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false };

async function post(model: string, body: Record<string, unknown>) {
  const response = await fetch(`${fixture.gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fixture.sdk.openai.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, ...body }),
  });
  const text = await response.text();
  await fixture.settled();
  return { status: response.status, text };
}

/** Every tool result sent upstream answers a tool call sent before it in the same request. */
function orphanResults(up: (typeof converted)[number], body: any): string[] {
  const calls = new Set<string>();
  const orphans: string[] = [];
  if (up === 'openai-chat') {
    for (const m of body.messages) {
      for (const call of m.tool_calls ?? []) calls.add(call.id);
      if (m.role === 'tool' && !calls.has(m.tool_call_id)) orphans.push(m.tool_call_id);
    }
  } else if (up === 'anthropic') {
    for (const m of body.messages) for (const b of m.content) {
      if (b.type === 'tool_use') calls.add(b.id);
      if (b.type === 'tool_result' && !calls.has(b.tool_use_id)) orphans.push(b.tool_use_id);
    }
  } else {
    for (const c of body.contents) for (const p of c.parts) {
      if (p.functionCall) calls.add(p.functionCall.id ?? p.functionCall.name);
      if (p.functionResponse && !calls.has(p.functionResponse.id ?? p.functionResponse.name)) orphans.push(p.functionResponse.id);
    }
  }
  return orphans;
}

describe('the agent loop on previous_response_id: only the function_call_output is in input', () => {
  // With previous_response_id (or an item_reference to the call), the function_call lives in OpenAI's store;
  // the gateway drops it with a warning and sends the tool result alone. Chat Completions refuses a `tool`
  // message that answers no preceding `tool_calls`, Anthropic a `tool_result` with no `tool_use` in the
  // previous message, Gemini a functionResponse turn that does not follow a functionCall turn.
  const inputs = {
    'previous_response_id': { previous_response_id: 'resp_prev1', input: [{ type: 'function_call_output', call_id: 'call_9', output: '18C' }] },
    'item_reference to the call': { input: [{ role: 'user', content: 'Weather in Paris?' }, { type: 'item_reference', id: 'fc_9' }, { type: 'function_call_output', call_id: 'call_9', output: '18C' }] },
  };
  it.each(converted.flatMap((up) => Object.keys(inputs).map((how) => ({ up, how }))))('$how → $up: refused (400) or sent whole — never a tool result without its call', async ({ up, how }) => {
    const before = fixture.primary[up].requests.length;
    const { status, text } = await post(modelOf[up], { ...inputs[how as keyof typeof inputs], tools: [weather] });
    if (fixture.primary[up].requests.length > before) {
      const sent = fixture.primary[up].requests.at(-1)!.body;
      expect(orphanResults(up, sent), `upstream got tool results with no call: ${JSON.stringify(sent)}`).toEqual([]);
    } else {
      expect(status, text).toBe(400);
      expect(['previous_response_id', 'input']).toContain(JSON.parse(text).error.param?.replace(/\[.*$/, ''));
    }
  });
});

describe('Anthropic: tool_use / tool_result blocks need `tools` defined', () => {
  // Anthropic: 400 "Requests which include `tool_use` or `tool_result` blocks must define tools."
  const history = [
    { role: 'user', content: 'Weather in Paris?' },
    { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { type: 'function_call_output', call_id: 'call_1', output: '18C' },
    { role: 'user', content: 'Now summarise in one line.' },
  ];
  it.each([
    { name: 'no tools on the follow-up turn', extra: {} },
    { name: 'only a built-in tool (web_search, dropped)', extra: { tools: [{ type: 'web_search' }] } },
  ])('$name', async ({ extra }) => {
    const before = fixture.primary.anthropic.requests.length;
    await fixture.sdk.openai.responses.create({ model: modelOf.anthropic, input: history, ...extra } as any).catch(() => undefined);
    expect(fixture.primary.anthropic.requests.length - before).toBe(1);
    const sent = fixture.primary.anthropic.requests.at(-1)!.body as any;
    const toolBlocks = sent.messages.flatMap((m: any) => m.content).filter((b: any) => b.type === 'tool_use' || b.type === 'tool_result');
    if (toolBlocks.length > 0) expect(sent.tools?.length ?? 0, `tool blocks without tools: ${JSON.stringify(sent)}`).toBeGreaterThan(0);
  });
});

describe('Gemini: a toolConfig needs function declarations', () => {
  // Gemini: 400 INVALID_ARGUMENT "Function calling config is set without function_declarations."
  it.each(['auto', 'required', 'none'])('built-in tools only (dropped) with tool_choice %s', async (choice) => {
    const before = fixture.primary.gemini.requests.length;
    await fixture.sdk.openai.responses.create({ model: modelOf.gemini, input: 'Latest news?', tools: [{ type: 'web_search' }], tool_choice: choice } as any).catch(() => undefined);
    expect(fixture.primary.gemini.requests.length - before).toBe(1);
    const sent = fixture.primary.gemini.requests.at(-1)!.body as any;
    const declarations = (sent.tools ?? []).flatMap((tool: any) => tool.functionDeclarations ?? []);
    if (sent.toolConfig !== undefined) expect(declarations.length, `toolConfig without declarations: ${JSON.stringify(sent)}`).toBeGreaterThan(0);
  });
});

describe('reasoning.effort "none" (OpenAPI ReasoningEffort) is asked as no/least reasoning, not the upstream default', () => {
  // The canonical model can say "off" (budget 0: Gemini thinkingBudget 0, as Anthropic `thinking: disabled`
  // is carried); today "none" is dropped and Gemini 2.5 thinks (and bills reasoning tokens) by default.
  it('gemini upstream', async () => {
    await fixture.sdk.openai.responses.create({ model: modelOf.gemini, input: 'hi', reasoning: { effort: 'none' } } as any);
    const sent = fixture.primary.gemini.requests.at(-1)!.body as any;
    const thinking = sent.generationConfig?.thinkingConfig;
    expect(thinking?.thinkingBudget === 0 || thinking?.thinkingLevel === 'MINIMAL', JSON.stringify(sent)).toBe(true);
  });
});
