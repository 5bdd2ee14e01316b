/**
 * Recorded Chat streams relayed to a Chat client that did not ask for usage (DeepSeek puts
 * its usage on the finish chunk itself), Gemini JSON-array framing, and keep-alive during upstream silence.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { callerKey, modelOf, startCrossStyleFixture, type CrossStyleFixture } from '../cross-style/harness.js';
import { contentOf, recordings, wirePieces } from './recorded.js';

const recs = recordings();
const rec = (name: string) => recs.find((r) => r.name === name)!;

function parseSse(text: string): { event?: string; data: any }[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const event = /^event: ?(.*)$/m.exec(block)?.[1];
      const data = /^data: ?(.*)$/m.exec(block)?.[1] ?? '';
      return { event, data: data === '[DONE]' ? '[DONE]' : JSON.parse(data) };
    });
}

describe('chat pass-through without include_usage', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => fixture.close());
  beforeEach(async () => fixture.gateway.settled());

  it.each(['deepseek-text', 'deepseek-reasoning', 'deepseek-tool-call', 'openai-text'])('%s: finish chunk kept, no usage, [DONE], billed the recorded usage', async (name) => {
    const r = rec(name);
    fixture.upstream.enqueue({ raw: wirePieces(r) });
    const response = await fetch(`${fixture.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: modelOf['openai-chat'], stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
    const events = parseSse(await response.text());
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => e.data);
    const expected = contentOf(r);
    const finish = chunks.flatMap((c) => c.choices ?? []).filter((ch: any) => ch.finish_reason).map((ch: any) => ch.finish_reason);
    expect(finish).toEqual([{ stop: 'stop', tool: 'tool_calls', length: 'length' }[expected.stop as 'stop']]);
    expect(chunks.filter((c) => c.usage).length).toBe(0);
    expect(chunks.map((c) => c.choices.map((ch: any) => ch.delta.content ?? '').join('')).join('')).toBe(expected.text);
    const row = await fixture.lastLog();
    expect({ input: row.input_tokens, output: row.output_tokens, source: row.usage_source }).toEqual({ input: expected.input, output: expected.output, source: 'upstream' });
    // The official SDK too.
    fixture.upstream.enqueue({ raw: wirePieces(r) });
    const final = await fixture.openai.chat.completions.stream({ model: modelOf['openai-chat'], messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion();
    expect(final.choices[0]!.message.content ?? '').toBe(expected.text);
    expect(final.choices[0]!.finish_reason).toBe({ stop: 'stop', tool: 'tool_calls', length: 'length' }[expected.stop as 'stop']);
  });
});

describe('gemini client, JSON-array stream (no alt=sse)', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => fixture.close());
  beforeEach(async () => fixture.gateway.settled());

  it.each(['google-text', 'google-reasoning', 'google-tool-call', 'google-stream-tool-call-arguments'])('%s: a JSON array of the recorded responses', async (name) => {
    const r = rec(name);
    fixture.upstream.enqueue({ raw: wirePieces(r) });
    const response = await fetch(`${fixture.gateway.url}/v1beta/models/${modelOf.gemini}:streamGenerateContent`, { method: 'POST', headers: { 'x-goog-api-key': callerKey, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) });
    expect(response.status).toBe(200);
    const array = JSON.parse(await response.text());
    expect(array).toEqual(r.lines.map((l) => JSON.parse(l)));
  });
});

describe('keep-alive while the upstream is silent mid-stream', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture({ STREAM_KEEPALIVE_SECONDS: '1' });
  });
  afterAll(async () => fixture.close());
  beforeEach(async () => fixture.gateway.settled());

  const cases: [string, string][] = [
    ['anthropic-text', 'anthropic'],
    ['anthropic-text', 'openai-chat'],
    ['google-text', 'gemini'],
    ['google-text', 'openai-responses'],
    ['deepseek-tool-call', 'openai-chat'],
    ['deepseek-tool-call', 'anthropic'],
    ['openai-reasoning-encrypted-content#3', 'openai-responses'],
    ['openai-reasoning-encrypted-content#3', 'gemini'],
  ];
  it.each(cases)('%s → %s client: pings during a 2.5 s pause, content intact', async (name, client) => {
    const r = rec(name);
    const pieces = wirePieces(r);
    const cut = Math.ceil(pieces.length / 2);
    // First half, 2.5 s of silence (two keep-alive periods), then the rest.
    fixture.upstream.enqueue({ raw: [pieces.slice(0, cut).join(''), pieces.slice(cut).join('')], delayMs: 2500 });
    const model = modelOf[r.style];
    const req: any = {
      'openai-chat': ['/v1/chat/completions', { model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] }],
      anthropic: ['/v1/messages', { model, stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }],
      'openai-responses': ['/v1/responses', { model, stream: true, input: 'hi' }],
      gemini: [`/v1beta/models/${model}:streamGenerateContent?alt=sse`, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }],
    }[client];
    const response = await fetch(`${fixture.gateway.url}${req[0]}`, { method: 'POST', headers: { authorization: `Bearer ${callerKey}`, 'x-goog-api-key': callerKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify(req[1]) });
    const text = await response.text();
    expect(text).toMatch(/(^|\n): keep-alive\r?\n\r?\n/);
    const row = await fixture.lastLog();
    const expected = contentOf(r);
    expect({ input: row.input_tokens, output: row.output_tokens, error: row.error }).toEqual({ input: expected.input, output: expected.output, error: null });
    // Every event still parses (a ping never lands inside an event).
    expect(() => parseSse(text)).not.toThrow();
  }, 20000);
});
