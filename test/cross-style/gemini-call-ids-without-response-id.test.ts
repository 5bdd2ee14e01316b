/**
 * A Gemini upstream (or Gemini-compatible server) whose answers carry no `responseId` and whose function
 * calls carry no ids: the ids the gateway makes up must still differ from one turn of a tool loop to the
 * next, since clients key tool results by id and Anthropic refuses a history whose `tool_use` ids repeat.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedReply, ScriptedRequest } from '../fakes/scripted-upstream.js';
import { anthropicWhole, geminiStream } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';
import { validateAnthropic, validateGemini } from './vendor-history-rules.js';

let fixture: CrossStyleFixture;
let violations: string[];
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

const weatherSchema = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };

/** Two id-less parallel calls in an answer without `responseId`, after checking Gemini's history rules. */
function idlessGemini(request: ScriptedRequest): ScriptedReply {
  violations.push(...validateGemini(request.body, request.path));
  const reply = geminiStream({ tools: [{ id: 'unused', name: 'get_weather', args: '{"city":"Oslo"}' }, { id: 'unused', name: 'get_weather', args: '{"city":"Rome"}' }], stop: 'tool', usage: { input: 20, output: 10 } });
  for (const event of reply.sse!) delete (event.data as any).responseId;
  return reply;
}

/** An Anthropic upstream that answers 400 as Anthropic does when the history breaks its rules (repeated tool_use ids among them). */
function checkingAnthropic(request: ScriptedRequest): ScriptedReply {
  const errors = validateAnthropic(request.body);
  violations.push(...errors);
  if (errors.length > 0) return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: errors.join('; ') }, request_id: 'req_refused' } };
  return anthropicWhole({ text: 'Both cities are sunny.', usage: { input: 60, output: 6 } });
}

const outcome = (promise: Promise<unknown>) => promise.then(() => ({ status: 200 }), (error: any) => ({ status: error.status as number, message: error.message as string }));

describe('Gemini answers without responseId: generated call ids across two turns', () => {
  it.each([false, true])('openai chat client: distinct ids in both turns, and the history replayed to Claude is answered (stream=%s)', async (stream) => {
    violations = [];
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(idlessGemini, idlessGemini);
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather', parameters: weatherSchema } }];
    const messages: any[] = [{ role: 'user', content: 'Weather in Oslo and Rome, twice?' }];
    const ids: string[] = [];
    for (let turn = 0; turn < 2; turn += 1) {
      const body: any = { model: M.gemini, messages, tools };
      const completion = stream ? await fixture.openai.chat.completions.stream(body).finalChatCompletion() : await fixture.openai.chat.completions.create(body);
      const message: any = completion.choices[0]!.message;
      expect(message.tool_calls).toHaveLength(2);
      messages.push(message);
      for (const call of message.tool_calls) {
        ids.push(call.id);
        messages.push({ role: 'tool', tool_call_id: call.id, content: `sunny in ${JSON.parse(call.function.arguments).city}` });
      }
    }
    expect(new Set(ids).size, `ids ${JSON.stringify(ids)}: the client keys its tool results by them`).toBe(4);
    fixture.upstream.enqueue(checkingAnthropic);
    const replay = await outcome(fixture.openai.chat.completions.create({ model: M.anthropic, messages, tools }));
    expect(replay).toEqual({ status: 200 });
    expect(violations).toEqual([]);
  });

  it.each([false, true])('anthropic client: distinct tool_use ids in both turns, and the history replayed to Claude is answered (stream=%s)', async (stream) => {
    violations = [];
    fixture.upstream.clearQueue();
    fixture.upstream.enqueue(idlessGemini, idlessGemini);
    const tools = [{ name: 'get_weather', description: 'Weather', input_schema: weatherSchema }];
    const messages: any[] = [{ role: 'user', content: 'Weather in Oslo and Rome, twice?' }];
    const ids: string[] = [];
    for (let turn = 0; turn < 2; turn += 1) {
      const body: any = { model: M.gemini, max_tokens: 256, messages, tools };
      const message = stream ? await fixture.anthropic.messages.stream(body).finalMessage() : await fixture.anthropic.messages.create(body);
      const uses = message.content.filter((block) => block.type === 'tool_use') as any[];
      expect(uses).toHaveLength(2);
      ids.push(...uses.map((use) => use.id));
      messages.push({ role: 'assistant', content: message.content });
      messages.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result', tool_use_id: use.id, content: `sunny in ${use.input.city}` })) });
    }
    expect(new Set(ids).size, `ids ${JSON.stringify(ids)}: Anthropic refuses repeated tool_use ids`).toBe(4);
    fixture.upstream.enqueue(checkingAnthropic);
    const replay = await outcome(fixture.anthropic.messages.create({ model: M.anthropic, max_tokens: 256, messages, tools }));
    expect(replay).toEqual({ status: 200 });
    expect(violations).toEqual([]);
  });
});
