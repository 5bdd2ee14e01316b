/**
 * A Chat client's tool history sent to a Chat channel (passthrough, no conversion). The Chat field for a
 * thought signature, `tool_calls[i].extra_content.google.thought_signature`, is Google's: Google's
 * OpenAI-compatible endpoint verifies what it finds there. Another vendor's value there is tagged
 * (`thinking:anthropic:…`, Claude's signature with its text) — a client that carries a Gemini history over to Chat (Gemini
 * `thoughtSignature` ↔ `extra_content.google.thought_signature`, as OpenAI-compatible wrappers of Gemini do)
 * hands the gateway what it gave a Gemini client. Such a value must not reach the Chat upstream, as it does
 * not reach a Gemini one; Google's own, untagged, passes through with the client's bytes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ScriptedReply, ScriptedRequest } from '../fakes/scripted-upstream.js';
import { replyFor, type Answer } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';
import { validateChat } from './vendor-history-rules.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});
beforeEach(() => fixture.upstream.clearQueue());

const weatherSchema = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };
const claudeTurn: Answer = { id: 'msg_1', thinking: { text: 'I need the weather.', signature: 'EqQBClaudeSig1' }, tools: [{ id: 'toolu_W1', name: 'get_weather', args: '{"city":"Paris"}' }], stop: 'tool', usage: { input: 20, output: 10 } };
const finalAnswer: Answer = { text: 'Sunny.', stop: 'stop', usage: { input: 40, output: 2 } };
const geminiConfig = { thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 }, tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parametersJsonSchema: weatherSchema }] }] };
const chatTools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather', parameters: weatherSchema } }];

function answer(up: 'anthropic' | 'openai-chat', reply: Answer): (request: ScriptedRequest) => ScriptedReply {
  return (request) => {
    const body = request.body as any;
    const errors = up === 'openai-chat' ? validateChat(body) : [];
    if (errors.length > 0) return { status: 400, json: { error: { message: errors.join('; '), type: 'invalid_request_error' } } };
    return replyFor(up, reply, body?.stream === true);
  };
}

/** Turn 1 on Claude through a Gemini client: the function call's thoughtSignature as the gateway hands it over. */
async function claudeSignatureGivenToGemini(): Promise<string> {
  fixture.upstream.enqueue(answer('anthropic', claudeTurn));
  const contents = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }];
  const response = await fixture.gemini.models.generateContent({ model: M.anthropic, contents, config: geminiConfig });
  const call = response.candidates![0]!.content!.parts!.find((part) => part.functionCall !== undefined)!;
  return call.thoughtSignature!;
}

/** A Chat history whose tool call carries `signature` where Google's OpenAI-compatible endpoint puts it. */
function chatHistory(signature: string): any[] {
  return [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' }, extra_content: { google: { thought_signature: signature } } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
  ];
}

describe('an OpenAI Chat client replaying a history to a Chat channel (passthrough)', () => {
  it.each([false, true])("does not relay Claude's tagged signature in extra_content.google.thought_signature (stream=%s)", async (stream) => {
    const tagged = await claudeSignatureGivenToGemini();
    expect(tagged).toBe(`thinking:anthropic:EqQBClaudeSig1:${Buffer.from('I need the weather.').toString('base64')}`);
    fixture.upstream.enqueue(answer('openai-chat', finalAnswer));
    const messages = chatHistory(tagged);
    const text = stream
      ? (await fixture.openai.chat.completions.stream({ model: M.chat, messages, tools: chatTools }).finalChatCompletion()).choices[0]!.message.content
      : (await fixture.openai.chat.completions.create({ model: M.chat, messages, tools: chatTools })).choices[0]!.message.content;
    expect(text).toBe('Sunny.');
    const sent = fixture.upstream.requests.at(-1)!.body as any;
    expect(JSON.stringify(sent)).not.toContain('ClaudeSig1');
    // The call keeps Google's stand-in, as toward Gemini (Gemini 3 behind Google's endpoint refuses a call without one).
    expect(sent.messages[1].tool_calls[0]).toEqual({ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' }, extra_content: { google: { thought_signature: 'skip_thought_signature_validator' } } });
    expect(sent.messages[2]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'sunny' });
    expect(JSON.stringify((await fixture.lastLog()).warnings)).toContain('issued by anthropic cannot be verified by Google: dropped');
  });

  it("relays Google's own signature untouched, the client's bytes as sent", async () => {
    fixture.upstream.enqueue(answer('openai-chat', finalAnswer));
    const messages = chatHistory('CiQBGeminiSig1');
    const result = await fixture.openai.chat.completions.create({ model: M.chat, messages, tools: chatTools });
    expect(result.choices[0]!.message.content).toBe('Sunny.');
    const sent = fixture.upstream.requests.at(-1)!;
    expect((sent.body as any).messages[1].tool_calls[0].extra_content).toEqual({ google: { thought_signature: 'CiQBGeminiSig1' } });
    expect(JSON.stringify((await fixture.lastLog()).warnings ?? [])).not.toContain('cannot be verified');
  });
});
