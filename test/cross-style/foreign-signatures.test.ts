/**
 * Reasoning signatures carried across vendors (the cross-vendor signature audit). A client's history holds
 * the opaque reasoning of whichever vendor answered each turn; when the next turn is routed to a channel of
 * another vendor, that vendor cannot verify it and refuses the request (Anthropic: "Invalid `signature` in
 * `thinking` block"; Gemini: a corrupted thought signature; OpenAI: encrypted content it cannot verify).
 * Each test runs turn 1 through vendor A and replays the history, through the same official SDK, to vendor
 * B, whose fake checks its history rules and verifies every signature against those it issued
 * (vendor-history-rules.ts). The gateway must send each signature only to its issuer, dropping the others
 * with a warning in the log (turning thinking off where Anthropic then requires it).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ScriptedReply, ScriptedRequest } from '../fakes/scripted-upstream.js';
import { replyFor, type Answer, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';
import {
  validateAnthropic, validateChat, validateGemini, validateResponses, verifyAnthropicSignatures, verifyGeminiSignatures, verifyResponsesEncryptedContent,
} from './vendor-history-rules.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

/** What each fake vendor has issued in this test (its signatures, redacted data, encrypted content). */
let issued: Record<WireStyle, Set<string>>;
beforeEach(() => {
  issued = { anthropic: new Set(), gemini: new Set(), 'openai-responses': new Set(), 'openai-chat': new Set() };
  fixture.upstream.clearQueue();
});

/** A fake vendor: refuses, with its 400, a history it would refuse; else answers `answer` and remembers the signature it gave. */
function vendor(up: WireStyle, answer: Answer): (request: ScriptedRequest) => ScriptedReply {
  return (request) => {
    const body = request.body as any;
    const errors =
      up === 'anthropic' ? [...validateAnthropic(body), ...verifyAnthropicSignatures(body, issued.anthropic)]
      : up === 'gemini' ? [...validateGemini(body, request.path), ...verifyGeminiSignatures(body, issued.gemini)]
      : up === 'openai-responses' ? [...validateResponses(body, new Map()), ...verifyResponsesEncryptedContent(body, issued['openai-responses'])]
      : validateChat(body);
    if (errors.length > 0) {
      const message = errors.join('; ');
      if (up === 'anthropic') return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message }, request_id: 'req_refused' } };
      if (up === 'gemini') return { status: 400, json: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } } };
      return { status: 400, json: { error: { message, type: 'invalid_request_error', param: 'input', code: 'invalid_encrypted_content' } } };
    }
    if (answer.thinking !== undefined) issued[up].add(answer.thinking.signature);
    return replyFor(up, answer, body?.stream === true);
  };
}

const weatherSchema = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };
const call = { id: 'toolu_W1', name: 'get_weather', args: '{"city":"Paris"}' };
/** Turn 1: reasoning with the vendor's opaque data, then a call. */
const geminiTurn: Answer = { thinking: { text: 'Think.', signature: 'CiQBGeminiSig1' }, tools: [{ ...call, id: 'gid-1' }], geminiSignatureOnCall: true, geminiCallIds: true, stop: 'tool', usage: { input: 20, output: 10 } };
const claudeTurn: Answer = { id: 'msg_1', thinking: { text: 'I need the weather.', signature: 'EqQBClaudeSig1' }, tools: [call], stop: 'tool', usage: { input: 20, output: 10 } };
const responsesTurn: Answer = { id: 'resp_1', thinking: { text: 'I need the weather.', signature: 'gAAAAABencOpenAI1' }, tools: [{ ...call, id: 'call_R1' }], stop: 'tool', usage: { input: 20, output: 10 } };
const finalAnswer: Answer = { text: 'Sunny.', stop: 'stop', usage: { input: 40, output: 2 } };

const logWarnings = async () => JSON.stringify((await fixture.lastLog()).warnings);
const outcome = <T>(promise: Promise<T>) => promise.then((value) => ({ ok: true as const, value }), (error: any) => ({ ok: false as const, status: error.status as number, message: String(error.message) }));

// ---------- Gemini client ----------
const geminiConfig = { thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 }, tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parametersJsonSchema: weatherSchema }] }] };
async function geminiHistory(model: string, stream: boolean): Promise<any[]> {
  const contents: any[] = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }];
  let parts: any[] = [];
  if (stream) for await (const chunk of await fixture.gemini.models.generateContentStream({ model, contents, config: geminiConfig })) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
  else parts = (await fixture.gemini.models.generateContent({ model, contents, config: geminiConfig })).candidates![0]!.content!.parts!;
  const fc = parts.find((p) => p.functionCall !== undefined);
  return [...contents, { role: 'model', parts }, { role: 'user', parts: [{ functionResponse: { id: fc.functionCall.id, name: 'get_weather', response: { output: 'sunny' } } }] }];
}

describe('a Gemini client replaying one vendor’s turn to another', () => {
  it.each([false, true])("Gemini 3's thought signature is not sent to Claude (stream=%s)", async (stream) => {
    fixture.upstream.enqueue(vendor('gemini', geminiTurn), vendor('anthropic', finalAnswer));
    const contents = await geminiHistory(M.gemini3, stream);
    const answer = await outcome(fixture.gemini.models.generateContent({ model: M.anthropic, contents, config: geminiConfig }));
    expect(answer.ok ? answer.value.text : answer).toBe('Sunny.');
    const sent = fixture.upstream.requests.at(-1)!.body as any;
    expect(JSON.stringify(sent.messages)).not.toContain('CiQBGeminiSig1');
    // The tool turn lost its thinking: Anthropic requires it with thinking on, so this request goes without.
    expect(sent.thinking).toBeUndefined();
    expect(await logWarnings()).toContain('reasoning signed by google cannot be verified by Anthropic: dropped');
  });

  it("Claude's signature is not sent to Gemini 3 (the call keeps Google's stand-in), and comes back to Claude", async () => {
    fixture.upstream.enqueue(vendor('anthropic', claudeTurn), vendor('gemini', finalAnswer));
    const contents = await geminiHistory(M.anthropic, true);
    const answer = await outcome(fixture.gemini.models.generateContent({ model: M.gemini3, contents, config: geminiConfig }));
    expect(answer.ok ? answer.value.text : answer).toBe('Sunny.');
    const sentParts = (fixture.upstream.requests.at(-1)!.body as any).contents.flatMap((c: any) => c.parts);
    expect(JSON.stringify(sentParts)).not.toContain('EqQBClaudeSig1');
    expect(sentParts.find((p: any) => p.functionCall !== undefined).thoughtSignature).toBe('skip_thought_signature_validator');
    expect(await logWarnings()).toContain('cannot be verified by Gemini: dropped');
    // The same history back to Claude still carries Claude's own signature.
    fixture.upstream.enqueue(vendor('anthropic', finalAnswer));
    const again = await outcome(fixture.gemini.models.generateContent({ model: M.anthropic, contents, config: geminiConfig }));
    expect(again.ok ? again.value.text : again).toBe('Sunny.');
    expect((fixture.upstream.requests.at(-1)!.body as any).messages[1].content[0]).toMatchObject({ type: 'thinking', signature: 'EqQBClaudeSig1' });
  });
});

// ---------- Anthropic client, thinking on ----------
const anthropicTools = [{ name: 'get_weather', description: 'Weather', input_schema: weatherSchema }];
async function anthropicHistory(model: string, stream: boolean): Promise<any[]> {
  const messages: any[] = [{ role: 'user', content: 'Weather in Paris?' }];
  const body: any = { model, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 }, tools: anthropicTools, messages };
  const message = stream ? await fixture.anthropic.messages.stream(body).finalMessage() : await fixture.anthropic.messages.create(body);
  const use = message.content.find((b) => b.type === 'tool_use') as any;
  return [...messages, { role: 'assistant', content: message.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] }];
}
const askClaude = (model: string, messages: any[]) =>
  outcome(fixture.anthropic.messages.create({ model, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 }, tools: anthropicTools, messages }));
const textOf = (result: Awaited<ReturnType<typeof askClaude>>) => (result.ok ? result.value.content.filter((b) => b.type === 'text').map((b: any) => b.text).join('') : result);

describe('an Anthropic client replaying one vendor’s turn to another', () => {
  it.each([false, true])("Gemini 3's signature is not sent to Claude (passthrough), and still reaches Gemini (stream=%s)", async (stream) => {
    fixture.upstream.enqueue(vendor('gemini', geminiTurn), vendor('anthropic', finalAnswer));
    const messages = await anthropicHistory(M.gemini3, stream);
    expect(textOf(await askClaude(M.anthropic, messages))).toBe('Sunny.');
    const sent = fixture.upstream.requests.at(-1)!.body as any;
    expect(JSON.stringify(sent.messages)).not.toContain('CiQBGeminiSig1');
    expect(sent.thinking).toBeUndefined();
    expect(await logWarnings()).toContain('reasoning signed by google cannot be verified by Anthropic: dropped');
    fixture.upstream.enqueue(vendor('gemini', finalAnswer));
    expect(textOf(await askClaude(M.gemini3, messages))).toBe('Sunny.');
    const call = (fixture.upstream.requests.at(-1)!.body as any).contents[1].parts.find((p: any) => p.functionCall !== undefined);
    expect(call.thoughtSignature).toBe('CiQBGeminiSig1');
  });

  it("a Responses upstream's encrypted reasoning is not sent to Claude as redacted_thinking (passthrough), and still reaches Responses", async () => {
    fixture.upstream.enqueue(vendor('openai-responses', responsesTurn), vendor('anthropic', finalAnswer));
    const messages = await anthropicHistory(M.responses, true);
    expect(textOf(await askClaude(M.anthropic, messages))).toBe('Sunny.');
    expect(JSON.stringify((fixture.upstream.requests.at(-1)!.body as any).messages)).not.toContain('gAAAAABencOpenAI1');
    expect(await logWarnings()).toContain('reasoning signed by openai cannot be verified by Anthropic: dropped');
    fixture.upstream.enqueue(vendor('openai-responses', finalAnswer));
    expect(textOf(await askClaude(M.responses, messages))).toBe('Sunny.');
    expect((fixture.upstream.requests.at(-1)!.body as any).input.filter((i: any) => i.type === 'reasoning').map((i: any) => i.encrypted_content)).toEqual(['gAAAAABencOpenAI1']);
  });
});

// ---------- OpenAI Responses client, store=false ----------
const responsesTools = [{ type: 'function' as const, name: 'get_weather', description: 'Weather', parameters: weatherSchema, strict: false }];
async function responsesHistory(model: string): Promise<any[]> {
  const input: any[] = [{ role: 'user', content: 'Weather in Paris?' }];
  const response = await fixture.openai.responses.stream({ model, input, tools: responsesTools, store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'low', summary: 'auto' } }).finalResponse();
  const fc = response.output.find((i: any) => i.type === 'function_call') as any;
  return [...input, ...response.output, { type: 'function_call_output', call_id: fc.call_id, output: 'sunny' }];
}
const askResponses = (model: string, input: any[]) =>
  outcome(fixture.openai.responses.create({ model, input, tools: responsesTools, store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'low', summary: 'auto' } }));

describe('an OpenAI Responses client replaying one vendor’s turn to another', () => {
  it("Claude's signature is not sent to a Responses upstream as encrypted_content (passthrough)", async () => {
    fixture.upstream.enqueue(vendor('anthropic', claudeTurn), vendor('openai-responses', finalAnswer));
    const input = await responsesHistory(M.anthropic);
    const answer = await askResponses(M.responses, input);
    expect(answer.ok ? answer.value.output_text : answer).toBe('Sunny.');
    expect(JSON.stringify((fixture.upstream.requests.at(-1)!.body as any).input)).not.toContain('EqQBClaudeSig1');
    expect(await logWarnings()).toContain('cannot be verified by OpenAI: dropped');
  });

  it("Gemini 3's signature is not sent to Claude, and still reaches Gemini", async () => {
    fixture.upstream.enqueue(vendor('gemini', geminiTurn), vendor('anthropic', finalAnswer));
    const input = await responsesHistory(M.gemini3);
    const answer = await askResponses(M.anthropic, input);
    expect(answer.ok ? answer.value.output_text : answer).toBe('Sunny.');
    expect(JSON.stringify((fixture.upstream.requests.at(-1)!.body as any).messages)).not.toContain('CiQBGeminiSig1');
    fixture.upstream.enqueue(vendor('gemini', finalAnswer));
    const back = await askResponses(M.gemini3, input);
    expect(back.ok ? back.value.output_text : back).toBe('Sunny.');
    expect(JSON.stringify((fixture.upstream.requests.at(-1)!.body as any).contents)).toContain('"thoughtSignature":"CiQBGeminiSig1"');
  });
});

// ---------- OpenAI Chat client ----------
describe('an OpenAI Chat client replaying one vendor’s turn to another', () => {
  it.each([false, true])("Gemini 3's signature (extra_content.google.thought_signature) is not sent to Claude (stream=%s)", async (stream) => {
    fixture.upstream.enqueue(vendor('gemini', geminiTurn), vendor('anthropic', finalAnswer));
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather', parameters: weatherSchema } }];
    const messages: any[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const body: any = { model: M.gemini3, messages, tools, reasoning_effort: 'low' };
    const first: any = stream ? await fixture.openai.chat.completions.stream(body).finalChatCompletion() : await fixture.openai.chat.completions.create(body);
    const message = first.choices[0].message;
    expect(message.tool_calls[0].extra_content).toEqual({ google: { thought_signature: 'CiQBGeminiSig1' } });
    messages.push(message, { role: 'tool', tool_call_id: message.tool_calls[0].id, content: 'sunny' });
    const answer = await outcome(fixture.openai.chat.completions.create({ model: M.anthropic, messages, tools, reasoning_effort: 'low' }));
    expect(answer.ok ? answer.value.choices[0]!.message.content : answer).toBe('Sunny.');
    expect(JSON.stringify((fixture.upstream.requests.at(-1)!.body as any).messages)).not.toContain('CiQBGeminiSig1');
    expect(await logWarnings()).toContain('reasoning signed by google cannot be verified by Anthropic: dropped');
  });
});
