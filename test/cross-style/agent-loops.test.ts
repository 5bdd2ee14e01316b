/**
 * Multi-turn tool use through converted directions (from the toolturns audit). Each official SDK drives a
 * real agent loop (ask → run the tools the model called → send the results → a second round of calls →
 * the final answer) against a scripted upstream that checks, on every request, the rules its vendor
 * enforces on a tool history (vendor-history-rules.ts), and answers in the vendor's wire format.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyFor, type Answer, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import type { ScriptedRequest } from '../fakes/scripted-upstream.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';
import { validateAnthropic, validateChat, validateGemini, validateResponses, verifyAnthropicSignatures, verifyGeminiSignatures, verifyResponsesEncryptedContent } from './vendor-history-rules.js';

// ---------- the scripted, checking upstream ----------

function upstreamStyleOf(model: string): WireStyle {
  return model === M.chat ? 'openai-chat' : model === M.responses ? 'openai-responses' : model === M.anthropic ? 'anthropic' : 'gemini';
}

const usage = (input: number, output: number) => ({ input, output });
const UNI = '{"location":"Café \\u00e9 東京 🌧️","unit":"c\\"x"}';
const UNI_VALUE = { location: 'Café é 東京 🌧️', unit: 'c"x' };

/** Three upstream turns: two parallel calls (unicode; empty arguments), a second round of one call, the final text. */
function script(up: WireStyle, ids: string[], opts: { thinking?: { text: string; signature: string }; gemini3?: boolean } = {}): Answer[] {
  const g = up === 'gemini' && opts.gemini3 === true ? { geminiSignatureOnCall: true, geminiCallIds: true } : {};
  // Each answer has its own id (Gemini's responseId differs per response).
  return [
    { id: 'resp1', ...g, thinking: opts.thinking, tools: [{ id: ids[0]!, name: 'get_weather', args: UNI }, { id: ids[1]!, name: 'get_time', args: '' }], stop: 'tool', usage: usage(100, 20) },
    { id: 'resp2', ...g, thinking: opts.thinking === undefined ? undefined : { text: 'Now Paris.', signature: `${opts.thinking.signature}_2` }, tools: [{ id: ids[2]!, name: 'get_weather', args: '{"location":"Paris"}' }], stop: 'tool', usage: usage(300, 10) },
    { id: 'resp3', text: 'Done: sunny.', stop: 'stop', usage: usage(400, 5) },
  ];
}

const TOOL_RESULT: Record<string, (args: any) => string> = {
  get_weather: (args) => `sunny in ${args.location}`,
  get_time: () => '12:00',
};

const weatherSchema = { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string' } }, required: ['location'] };
const timeSchema = { type: 'object', properties: {} };

describe('agent loops through converted directions against vendor-checking upstreams', () => {
  let fixture: CrossStyleFixture;
  let violations: string[];
  let emittedReasoning: Map<string, string>;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  function queue(answers: Answer[], up: WireStyle): void {
    violations = [];
    emittedReasoning = new Map();
    // The signatures this upstream gave out: it verifies every one a history hands back.
    const issued = new Set<string>();
    for (const answer of answers) {
      fixture.upstream.enqueue((req: ScriptedRequest) => {
        const body = req.body;
        if (up === 'anthropic') violations.push(...validateAnthropic(body), ...verifyAnthropicSignatures(body, issued));
        if (up === 'gemini') violations.push(...validateGemini(body, req.path), ...verifyGeminiSignatures(body, issued));
        if (up === 'openai-responses') violations.push(...verifyResponsesEncryptedContent(body, issued));
        if (answer.thinking !== undefined) issued.add(answer.thinking.signature);
        if (up === 'openai-chat') violations.push(...validateChat(body));
        if (up === 'openai-responses') {
          violations.push(...validateResponses(body, emittedReasoning));
          if (body.store === false && answer.thinking !== undefined && !(body.include ?? []).includes('reasoning.encrypted_content')) violations.push('responses: store=false without include reasoning.encrypted_content');
          if (answer.thinking !== undefined) for (const t of answer.tools ?? []) emittedReasoning.set(t.id, answer.thinking.signature);
        }
        return replyFor(up, answer, body?.stream === true);
      });
    }
  }

  const requestsSince = (n: number) => fixture.upstream.requests.slice(n);

  // ---------- OpenAI Chat client ----------
  async function chatLoop(model: string, stream: boolean) {
    const tools = [
      { type: 'function' as const, function: { name: 'get_weather', description: 'Weather', parameters: weatherSchema } },
      { type: 'function' as const, function: { name: 'get_time', description: 'Time', parameters: timeSchema } },
    ];
    const messages: any[] = [{ role: 'user', content: 'Weather and time?' }];
    const seen: { id: string; name: string; args: any }[][] = [];
    for (let round = 0; round < 3; round++) {
      const body: any = { model, messages, tools, parallel_tool_calls: true };
      const completion = stream ? await fixture.openai.chat.completions.stream(body).finalChatCompletion() : await fixture.openai.chat.completions.create(body);
      const message: any = completion.choices[0]!.message;
      messages.push(message);
      if (completion.choices[0]!.finish_reason !== 'tool_calls') return { messages, seen, final: message.content };
      seen.push(message.tool_calls.map((c: any) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) })));
      for (const c of message.tool_calls) messages.push({ role: 'tool', tool_call_id: c.id, content: TOOL_RESULT[c.function.name]!(JSON.parse(c.function.arguments)) });
    }
    throw new Error('no final answer');
  }

  describe.each([
    { model: M.anthropic, gemini3: false },
    { model: M.gemini, gemini3: false },
    { model: M.gemini3, gemini3: true },
    { model: M.responses, gemini3: false },
  ])('openai-chat client → $model', ({ model, gemini3 }) => {
    it.each([false, true])('parallel calls, results, a second round, the answer (stream=%s)', async (stream) => {
      const up = upstreamStyleOf(model);
      const ids = up === 'anthropic' ? ['toolu_01A', 'toolu_01B', 'toolu_01C'] : up === 'openai-responses' ? ['call_A', 'call_B', 'call_C'] : ['gid-a', 'gid-b', 'gid-c'];
      queue(script(up, ids, gemini3 ? { thinking: { text: 'Think.', signature: 'GSIG1' }, gemini3 } : {}), up);
      const before = fixture.upstream.requests.length;
      const { seen, final } = await chatLoop(model, stream);
      expect(final).toBe('Done: sunny.');
      expect(seen[0]!.map((c) => c.name)).toEqual(['get_weather', 'get_time']);
      expect(seen[0]![0]!.args).toEqual(UNI_VALUE);
      expect(seen[0]![1]!.args).toEqual({});
      expect(new Set(seen.flat().map((c) => c.id)).size).toBe(3);
      if (up === 'anthropic' || up === 'openai-responses' || gemini3) expect(seen.flat().map((c) => c.id)).toEqual(ids);
      expect(violations).toEqual([]);
      const reqs = requestsSince(before);
      expect(reqs).toHaveLength(3);
      if (gemini3) {
        // The signatures Gemini 3 gave on its calls come back on those calls (not the skip placeholder).
        const last = reqs[2]!.body.contents;
        const sigs = last.flatMap((c: any) => c.parts.filter((p: any) => p.functionCall).map((p: any) => p.thoughtSignature)).filter(Boolean);
        expect(sigs).toEqual(['GSIG1', 'GSIG1_2']);
      }
      const log = await fixture.lastLog();
      expect(log).toMatchObject({ usage_source: 'upstream', input_tokens: 400, output_tokens: 5 });
    });
  });

  // ---------- thinking on at an Anthropic upstream, from clients that cannot hand a signature back ----------
  it.each([false, true])('openai-chat client with reasoning_effort → anthropic: turn 2 of a tool loop is valid with thinking on (stream=%s)', async (stream) => {
    queue([
      { id: 'msg_1', thinking: { text: 'I need the weather.', signature: 'ASIG1' }, tools: [{ id: 'toolu_01A', name: 'get_weather', args: '{"location":"Paris"}' }], stop: 'tool', usage: usage(100, 20) },
      { id: 'msg_2', thinking: { text: 'Done.', signature: 'ASIG2' }, text: 'Sunny.', stop: 'stop', usage: usage(200, 5) },
    ], 'anthropic');
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather', parameters: weatherSchema } }];
    const messages: any[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const body = () => ({ model: M.anthropic, messages, tools, reasoning_effort: 'low' as const });
    const first: any = stream ? await fixture.openai.chat.completions.stream(body()).finalChatCompletion() : await fixture.openai.chat.completions.create(body());
    const message = first.choices[0].message;
    expect(message.tool_calls[0].id).toBe('toolu_01A');
    messages.push(message, { role: 'tool', tool_call_id: message.tool_calls[0].id, content: 'sunny' });
    const before = fixture.upstream.requests.length;
    const second: any = await fixture.openai.chat.completions.create(body());
    expect(second.choices[0].message.content).toBe('Sunny.');
    // Anthropic: "When `thinking` is enabled, a final `assistant` message must start with a thinking block".
    // The Chat client cannot hand the signature back, so turn 2 goes without thinking, and the log says so.
    expect(violations).toEqual([]);
    const sent = fixture.upstream.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body.thinking).toBeUndefined();
    expect(fixture.upstream.requests[before - 1]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(JSON.stringify((await fixture.lastLog()).warnings)).toContain('thinking not sent: the assistant turn whose tool calls this request answers has no signed thinking to replay');
  });

  it.each([false, true])('gemini client with a thinking budget → anthropic answering redacted_thinking + tool_use: turn 2 is valid (stream=%s)', async (stream) => {
    violations = [];
    const redacted = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj';
    const turn1 = (req: ScriptedRequest) => {
      violations.push(...validateAnthropic(req.body));
      const events: any[] = [
        { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_r1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 50, output_tokens: 1 } } } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: redacted } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_R1', name: 'get_weather', input: {} } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"location":"Paris"}' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ];
      if (req.body.stream === true) return { sse: events };
      return { json: { id: 'msg_r1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'redacted_thinking', data: redacted }, { type: 'tool_use', id: 'toolu_R1', name: 'get_weather', input: { location: 'Paris' } }], stop_reason: 'tool_use', stop_sequence: null, usage: { input_tokens: 50, output_tokens: 30 } } };
    };
    fixture.upstream.enqueue(turn1, (req: ScriptedRequest) => {
      violations.push(...validateAnthropic(req.body));
      const blocks = req.body.messages[1].content;
      if (!blocks.some((b: any) => b.type === 'redacted_thinking' && b.data === redacted)) violations.push('anthropic: the redacted_thinking block did not come back unchanged');
      return replyFor('anthropic', { text: 'Sunny.', stop: 'stop', usage: usage(80, 3) }, req.body.stream === true);
    });
    const config = { thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 }, tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parametersJsonSchema: weatherSchema }] }] };
    const contents: any[] = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }];
    let parts: any[] = [];
    if (stream) {
      for await (const chunk of await fixture.gemini.models.generateContentStream({ model: M.anthropic, contents, config })) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    } else parts = (await fixture.gemini.models.generateContent({ model: M.anthropic, contents, config })).candidates![0]!.content!.parts!;
    const call = parts.find((p) => p.functionCall !== undefined);
    expect(call.functionCall).toMatchObject({ id: 'toolu_R1', name: 'get_weather', args: { location: 'Paris' } });
    contents.push({ role: 'model', parts }, { role: 'user', parts: [{ functionResponse: { id: call.functionCall.id, name: 'get_weather', response: { output: 'sunny' } } }] });
    const answer = await fixture.gemini.models.generateContent({ model: M.anthropic, contents, config });
    expect(answer.text).toBe('Sunny.');
    expect(violations).toEqual([]);
  });

  // ---------- Anthropic client with extended thinking ----------
  async function anthropicLoop(model: string, stream: boolean, thinking: boolean) {
    const tools = [
      { name: 'get_weather', description: 'Weather', input_schema: weatherSchema as any },
      { name: 'get_time', description: 'Time', input_schema: timeSchema as any },
    ];
    const messages: any[] = [{ role: 'user', content: 'Weather and time?' }];
    const seen: { id: string; name: string; args: any }[][] = [];
    const contents: any[][] = [];
    for (let round = 0; round < 3; round++) {
      const body: any = { model, max_tokens: 4096, messages, tools, ...(thinking ? { thinking: { type: 'enabled', budget_tokens: 1024 } } : {}) };
      const msg = stream ? await fixture.anthropic.messages.stream(body).finalMessage() : await fixture.anthropic.messages.create(body);
      contents.push(msg.content);
      messages.push({ role: 'assistant', content: msg.content });
      if (msg.stop_reason !== 'tool_use') return { seen, contents, final: msg.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('') };
      const uses = msg.content.filter((b: any) => b.type === 'tool_use') as any[];
      seen.push(uses.map((b) => ({ id: b.id, name: b.name, args: b.input })));
      messages.push({ role: 'user', content: uses.map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: TOOL_RESULT[b.name]!(b.input) })) });
    }
    throw new Error('no final answer');
  }

  describe.each([
    { model: M.chat, gemini3: false },
    { model: M.gemini3, gemini3: true },
    { model: M.gemini, gemini3: false },
    { model: M.responses, gemini3: false },
  ])('anthropic client (thinking on) → $model', ({ model, gemini3 }) => {
    it.each([false, true])('thinking + parallel calls, results, a second round, the answer (stream=%s)', async (stream) => {
      const up = upstreamStyleOf(model);
      const ids = up === 'openai-chat' ? ['call_1', 'call_2', 'call_3'] : up === 'openai-responses' ? ['call_A', 'call_B', 'call_C'] : ['gid-a', 'gid-b', 'gid-c'];
      const sig = up === 'openai-responses' ? 'gAAAAABenc1' : 'GSIG1';
      queue(script(up, ids, { thinking: { text: 'Let me think.', signature: sig }, gemini3 }), up);
      const before = fixture.upstream.requests.length;
      const { seen, contents, final } = await anthropicLoop(model, stream, true);
      expect(final).toBe('Done: sunny.');
      expect(seen[0]!.map((c) => c.name)).toEqual(['get_weather', 'get_time']);
      expect(seen[0]![0]!.args).toEqual(UNI_VALUE);
      expect(seen[0]![1]!.args).toEqual({});
      // The Anthropic SDK's own rule: every thinking block the client got has a signature to send back.
      for (const content of contents) for (const b of content as any[]) if (b.type === 'thinking') expect(typeof b.signature).toBe('string');
      expect(violations).toEqual([]);
      const reqs = requestsSince(before);
      expect(reqs).toHaveLength(3);
      if (up === 'openai-responses') {
        const input = reqs[2]!.body.input;
        expect(input.filter((i: any) => i.type === 'reasoning').map((i: any) => i.encrypted_content)).toEqual(['gAAAAABenc1', 'gAAAAABenc1_2']);
      }
      if (gemini3) {
        const sigs = reqs[2]!.body.contents.flatMap((c: any) => c.parts.filter((p: any) => p.functionCall).map((p: any) => p.thoughtSignature)).filter(Boolean);
        expect(sigs).toEqual(['GSIG1', 'GSIG1_2']);
      }
      const log = await fixture.lastLog();
      expect(log).toMatchObject({ usage_source: 'upstream', input_tokens: 400, output_tokens: 5 });
    });
  });

  // ---------- Gemini client ----------
  async function geminiLoop(model: string, stream: boolean) {
    const config = { thinkingConfig: { includeThoughts: true }, tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parametersJsonSchema: weatherSchema }, { name: 'get_time', description: 'Time', parametersJsonSchema: timeSchema }] }] };
    const contents: any[] = [{ role: 'user', parts: [{ text: 'Weather and time?' }] }];
    const seen: { id: string | undefined; name: string; args: any }[][] = [];
    for (let round = 0; round < 3; round++) {
      let parts: any[] = [];
      if (stream) {
        for await (const chunk of await fixture.gemini.models.generateContentStream({ model, contents, config })) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
      } else parts = (await fixture.gemini.models.generateContent({ model, contents, config })).candidates![0]!.content!.parts!;
      contents.push({ role: 'model', parts });
      const calls = parts.filter((p) => p.functionCall !== undefined);
      if (calls.length === 0) return { seen, contents, final: parts.filter((p) => !p.thought).map((p) => p.text ?? '').join('') };
      seen.push(calls.map((p) => ({ id: p.functionCall.id, name: p.functionCall.name, args: p.functionCall.args })));
      contents.push({ role: 'user', parts: calls.map((p) => ({ functionResponse: { id: p.functionCall.id, name: p.functionCall.name, response: { output: TOOL_RESULT[p.functionCall.name]!(p.functionCall.args ?? {}) } } })) });
    }
    throw new Error('no final answer');
  }

  describe.each([{ model: M.chat }, { model: M.anthropic }, { model: M.responses }])('gemini client → $model', ({ model }) => {
    it.each([false, true])('parallel calls, results, a second round, the answer (stream=%s)', async (stream) => {
      const up = upstreamStyleOf(model);
      const ids = up === 'anthropic' ? ['toolu_01A', 'toolu_01B', 'toolu_01C'] : ['call_1', 'call_2', 'call_3'];
      const thinking = up === 'anthropic' ? { text: 'Let me think.', signature: 'ASIG1' } : up === 'openai-responses' ? { text: 'Let me think.', signature: 'gAAAAABenc1' } : undefined;
      queue(script(up, ids, { thinking }), up);
      const before = fixture.upstream.requests.length;
      const { seen, final } = await geminiLoop(model, stream);
      expect(final).toBe('Done: sunny.');
      expect(seen[0]!.map((c) => c.name)).toEqual(['get_weather', 'get_time']);
      expect(seen[0]![0]!.args).toEqual(UNI_VALUE);
      expect(seen[0]![1]!.args ?? {}).toEqual({});
      expect(violations).toEqual([]);
      const reqs = requestsSince(before);
      expect(reqs).toHaveLength(3);
      // ids the upstream gave come back to it.
      if (up === 'anthropic') {
        const msgs = reqs[2]!.body.messages;
        expect(msgs.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []).filter((b: any) => b.type === 'tool_result').map((b: any) => b.tool_use_id))).toEqual(ids);
        expect(msgs.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []).filter((b: any) => b.type === 'thinking').map((b: any) => b.signature))).toEqual(['ASIG1', 'ASIG1_2']);
      }
      if (up === 'openai-chat') expect(reqs[2]!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.tool_call_id)).toEqual(ids);
      if (up === 'openai-responses') expect(reqs[2]!.body.input.filter((i: any) => i.type === 'function_call_output').map((i: any) => i.call_id)).toEqual(ids);
      const log = await fixture.lastLog();
      expect(log).toMatchObject({ usage_source: 'upstream', input_tokens: 400, output_tokens: 5 });
    });
  });

  // ---------- Responses client, store=false ----------
  async function responsesLoop(model: string, stream: boolean) {
    const tools = [
      { type: 'function' as const, name: 'get_weather', description: 'Weather', parameters: weatherSchema, strict: false },
      { type: 'function' as const, name: 'get_time', description: 'Time', parameters: timeSchema, strict: false },
    ];
    const input: any[] = [{ role: 'user', content: 'Weather and time?' }];
    const seen: { id: string; name: string; args: any }[][] = [];
    const outputs: any[][] = [];
    for (let round = 0; round < 3; round++) {
      const body: any = { model, input, tools, store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'low', summary: 'auto' } };
      const response = stream ? await fixture.openai.responses.stream(body).finalResponse() : await fixture.openai.responses.create(body);
      outputs.push(response.output);
      input.push(...response.output);
      const calls = response.output.filter((i: any) => i.type === 'function_call') as any[];
      if (calls.length === 0) return { seen, outputs, final: response.output_text };
      seen.push(calls.map((c) => ({ id: c.call_id, name: c.name, args: JSON.parse(c.arguments) })));
      for (const c of calls) input.push({ type: 'function_call_output', call_id: c.call_id, output: TOOL_RESULT[c.name]!(JSON.parse(c.arguments)) });
    }
    throw new Error('no final answer');
  }

  describe.each([
    { model: M.chat, gemini3: false },
    { model: M.anthropic, gemini3: false },
    { model: M.gemini, gemini3: false },
    { model: M.gemini3, gemini3: true },
  ])('openai-responses client (store=false) → $model', ({ model, gemini3 }) => {
    it.each([false, true])('reasoning + parallel calls, results, a second round, the answer (stream=%s)', async (stream) => {
      const up = upstreamStyleOf(model);
      const ids = up === 'anthropic' ? ['toolu_01A', 'toolu_01B', 'toolu_01C'] : up === 'openai-chat' ? ['call_1', 'call_2', 'call_3'] : ['gid-a', 'gid-b', 'gid-c'];
      const thinking = up === 'anthropic' ? { text: 'Let me think.', signature: 'ASIG1' } : gemini3 ? { text: 'Think.', signature: 'GSIG1' } : undefined;
      queue(script(up, ids, { thinking, gemini3 }), up);
      const before = fixture.upstream.requests.length;
      const { seen, outputs, final } = await responsesLoop(model, stream);
      expect(final).toBe('Done: sunny.');
      expect(seen[0]!.map((c) => c.name)).toEqual(['get_weather', 'get_time']);
      expect(seen[0]![0]!.args).toEqual(UNI_VALUE);
      expect(seen[0]![1]!.args).toEqual({});
      // store=false: any reasoning item handed to the client carries what it must send back.
      if (thinking !== undefined) for (const out of outputs.slice(0, 2)) expect(out.filter((i: any) => i.type === 'reasoning').every((i: any) => typeof i.encrypted_content === 'string' && i.encrypted_content !== '')).toBe(true);
      expect(violations).toEqual([]);
      const reqs = requestsSince(before);
      expect(reqs).toHaveLength(3);
      if (up === 'anthropic') {
        const msgs = reqs[2]!.body.messages;
        expect(msgs.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []).filter((b: any) => b.type === 'tool_result').map((b: any) => b.tool_use_id))).toEqual(ids);
        expect(msgs.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []).filter((b: any) => b.type === 'thinking').map((b: any) => b.signature))).toEqual(['ASIG1', 'ASIG1_2']);
      }
      if (gemini3) {
        const sigs = reqs[2]!.body.contents.flatMap((c: any) => c.parts.filter((p: any) => p.functionCall).map((p: any) => p.thoughtSignature)).filter(Boolean);
        expect(sigs).toEqual(['GSIG1', 'GSIG1_2']);
      }
      const log = await fixture.lastLog();
      expect(log).toMatchObject({ usage_source: 'upstream', input_tokens: 400, output_tokens: 5 });
    });
  });
});
