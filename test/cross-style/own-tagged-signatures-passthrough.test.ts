/**
 * A same-style history (passthrough) whose opaque reasoning is the upstream's own vendor's, but behind the
 * gateway's tag (`signature:google:X`, `signature:anthropic:X`, `redacted:anthropic:X`, `redacted:openai:X`,
 * or the issuer-less `signature:X` of before tags): the cleaners kept it, since its issuer may go there, and
 * sent it tag included, which the vendor cannot read (Gemini refuses a corrupted thought signature,
 * Anthropic an invalid signature, OpenAI encrypted content it cannot decrypt). Now the vendor gets `X`.
 * Each official SDK sends the history; the scripted upstream records what reached it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { replyFor } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});
beforeEach(() => fixture.upstream.clearQueue());

const final = { text: 'Sunny.', stop: 'stop' as const, usage: { input: 40, output: 2 } };
const weatherSchema = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };

describe('a same-style history with the upstream vendor\'s own value behind the gateway\'s tag reaches it untagged', () => {
  it.each(['signature:google:CiQBGeminiSig1', 'signature:CiQBGeminiSig1'])('Gemini client → Gemini channel: thoughtSignature %s goes as CiQBGeminiSig1', async (tagged) => {
    fixture.upstream.enqueue(replyFor('gemini', final, false));
    const contents = [
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: tagged }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'sunny' } } }] },
    ];
    const response = await fixture.gemini.models.generateContent({ model: M.gemini, contents, config: { tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weatherSchema }] }] } });
    expect(response.text).toBe('Sunny.');
    const sent = fixture.upstream.requests.at(-1)!.body as any;
    expect(sent.contents[1].parts[0]).toEqual({ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CiQBGeminiSig1' });
  });

  it('OpenAI Chat client → Chat channel: extra_content.google.thought_signature signature:google:X goes as X', async () => {
    fixture.upstream.enqueue(replyFor('openai-chat', final, false));
    const messages: any[] = [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' }, extra_content: { google: { thought_signature: 'signature:google:CiQBGeminiSig1' } } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
    ];
    const result = await fixture.openai.chat.completions.create({ model: M.chat, messages });
    expect(result.choices[0]!.message.content).toBe('Sunny.');
    const sent = fixture.upstream.requests.at(-1)!.body as any;
    expect(sent.messages[1].tool_calls[0].extra_content).toEqual({ google: { thought_signature: 'CiQBGeminiSig1' } });
  });

  it('Anthropic client → Anthropic channel: signature:anthropic:X and redacted:anthropic:Y go as X and Y', async () => {
    fixture.upstream.enqueue(replyFor('anthropic', final, false));
    const message = await fixture.anthropic.messages.create({
      model: M.anthropic,
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: [
          { type: 'thinking', thinking: 'I need the weather.', signature: 'signature:anthropic:EqQBClaudeSig1' },
          { type: 'redacted_thinking', data: 'redacted:anthropic:EmwKAhgBClaudeRedacted' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        ] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
      ],
    });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Sunny.' })]);
    const sent = fixture.upstream.requests.at(-1)!.body as any;
    expect(sent.messages[1].content.slice(0, 2)).toEqual([
      { type: 'thinking', thinking: 'I need the weather.', signature: 'EqQBClaudeSig1' },
      { type: 'redacted_thinking', data: 'EmwKAhgBClaudeRedacted' },
    ]);
  });

  it('Responses client → Responses channel: encrypted_content redacted:openai:X goes as X', async () => {
    fixture.upstream.enqueue(replyFor('openai-responses', final, false));
    const response = await fixture.openai.responses.create({
      model: M.responses,
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'redacted:openai:gAAAAABoEncrypted' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
      ],
    });
    expect(response.output_text).toBe('Sunny.');
    const sent = fixture.upstream.requests.at(-1)!.body as any;
    expect(sent.input[1]).toEqual({ type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAAABoEncrypted' });
  });

  it('an untagged value of the vendor\'s own is sent as the client\'s bytes', async () => {
    fixture.upstream.enqueue(replyFor('gemini', final, false));
    const contents = [
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'CiQBGeminiSig1' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'sunny' } } }] },
    ];
    await fixture.gemini.models.generateContent({ model: M.gemini, contents });
    expect((fixture.upstream.requests.at(-1)!.body as any).contents[1].parts[0].thoughtSignature).toBe('CiQBGeminiSig1');
  });
});
