/**
 * A Gemini stream that produced text but whose last report leaves out `candidatesTokenCount` (Gemini
 * writes it only when it counts candidates; some relays drop it from the last chunk; a thinking model's
 * report may carry `thoughtsTokenCount` alone). Such a report does not count the text: docs/behaviour.md
 * "Billing" bills its input (and thoughts) as reported and the produced text counted locally, never 0
 * output — for a Gemini client (streamed and whole) and for Chat, Anthropic and Responses clients in front
 * of the Gemini channel, who are shown the usage they are billed. An empty answer's prompt-only report is
 * still billed as reported. (The gateway billed these answers 0 output.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClientRequest, modelOf, readSse, startBillingFixture, tokens, type BillingFixture } from './billing-fixture.js';
import { booked, geminiRaw } from '../gemini-native/gemini-support.js';

let fixture: BillingFixture;
beforeAll(async () => {
  fixture = await startBillingFixture({ tokenQuota: 100_000_000, userQuota: 100_000_000, env: { RETRY_TIMES: '0' } });
});
afterAll(async () => fixture?.close());

const pieces = ['The quick brown fox ', 'jumps over the lazy dog ', 'and keeps on running.'];
const produced = pieces.join('');
const promptOnly = { promptTokenCount: 1000, totalTokenCount: 1000 };
const chunk = (text: string, extra: Record<string, unknown> = {}, thought = false) => ({
  data: { candidates: [{ content: { parts: [thought ? { text, thought: true } : { text }], role: 'model' }, index: 0, ...extra }], modelVersion: 'gemini-2.5-flash', responseId: 'r-nocand' },
});
/** Text without usage, then the finish chunk whose report counts the prompt alone. */
const textThenPromptOnly = () => [...pieces.slice(0, -1).map((text) => chunk(text)), { data: { ...chunk(pieces.at(-1)!, { finishReason: 'STOP' }).data, usageMetadata: promptOnly } }];
const billed = (row: any) => ({ source: row.usage_source, input: Number(row.input_tokens), output: Number(row.output_tokens) });
const expected = () => ({ source: 'local', input: 1000, output: tokens(produced) });

const streamPath = `/v1beta/models/${modelOf.gemini}:streamGenerateContent?alt=sse`;
const body = { contents: [{ parts: [{ text: 'Tell me a story' }] }] };

describe('a Gemini answer whose final usageMetadata has no candidatesTokenCount after text', () => {
  it('Gemini client (alt=sse): billed the reported input and the produced text, not 0 output', async () => {
    fixture.primary.gemini.enqueue({ sse: textThenPromptOnly(), crlf: true });
    const { result, row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, streamPath, body));
    expect(result!.status).toBe(200);
    expect(billed(row)).toEqual(expected());
  });

  it('Gemini client, whole answer: billed the reported input and the produced text', async () => {
    fixture.primary.gemini.enqueue({ sse: textThenPromptOnly(), crlf: true });
    const { row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, `/v1beta/models/${modelOf.gemini}:generateContent`, body));
    expect(billed(row)).toEqual(expected());
  });

  it('a report after the finish chunk, alone: billed the same', async () => {
    fixture.primary.gemini.enqueue({ sse: [...pieces.slice(0, -1).map((text) => chunk(text)), chunk(pieces.at(-1)!, { finishReason: 'STOP' }), { data: { usageMetadata: promptOnly, responseId: 'r-nocand' } }], crlf: true });
    const { row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, streamPath, body));
    expect(billed(row)).toEqual(expected());
  });

  it('Chat client (openai SDK, include_usage): shown and billed the reported input and the produced text', async () => {
    fixture.primary.gemini.enqueue({ sse: textThenPromptOnly(), crlf: true });
    const { result, row } = await booked(fixture, async () => {
      const stream = await fixture.sdk.openai.chat.completions.create({ model: modelOf.gemini, messages: [{ role: 'user', content: 'Tell me a story' }], stream: true, stream_options: { include_usage: true } });
      let text = '';
      let usage: unknown;
      for await (const event of stream) {
        text += event.choices[0]?.delta.content ?? '';
        usage = event.usage ?? usage;
      }
      return { text, usage };
    });
    expect(result!.text).toBe(produced);
    expect(billed(row)).toEqual(expected());
    expect(result!.usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: tokens(produced) });
  });

  it('Chat client, whole: shown and billed the reported input and the produced text', async () => {
    fixture.primary.gemini.enqueue({ sse: textThenPromptOnly(), crlf: true });
    const request = buildClientRequest(fixture.gateway.url, 'openai-chat', modelOf.gemini, false, 500);
    const { result, row } = await booked(fixture, async () => (await fetch(request.url, request.init)).json());
    expect(billed(row)).toEqual(expected());
    expect((result as any).usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: tokens(produced) });
  });

  it('Anthropic client (@anthropic-ai/sdk stream): finalMessage() shows the usage it is billed', async () => {
    fixture.primary.gemini.enqueue({ sse: textThenPromptOnly(), crlf: true });
    const { result, row } = await booked(fixture, () => fixture.sdk.anthropic.messages.stream({ model: modelOf.gemini, max_tokens: 500, messages: [{ role: 'user', content: 'Tell me a story' }] }).finalMessage());
    expect(billed(row)).toEqual(expected());
    expect(result!.usage).toMatchObject({ input_tokens: 1000, output_tokens: tokens(produced) });
  });

  it('Responses client, streamed: response.completed shows the usage it is billed', async () => {
    fixture.primary.gemini.enqueue({ sse: textThenPromptOnly(), crlf: true });
    const request = buildClientRequest(fixture.gateway.url, 'openai-responses', modelOf.gemini, true, 500);
    const { result, row } = await booked(fixture, async () => readSse(await fetch(request.url, request.init), 'openai-responses'));
    expect(billed(row)).toEqual(expected());
    const completed = result!.events.map((data) => JSON.parse(data)).find((event) => event.type === 'response.completed');
    expect(completed?.response.usage).toMatchObject({ input_tokens: 1000, output_tokens: tokens(produced) });
  });

  const thought = 'Let me think about foxes.';
  it('a thinking answer whose report counts thoughts but not the text: billed the thoughts plus the text counted locally', async () => {
    const thinking = { promptTokenCount: 1000, thoughtsTokenCount: 500, totalTokenCount: 1500 };
    fixture.primary.gemini.enqueue({
      sse: [
        { data: { ...chunk(thought, {}, true).data, usageMetadata: { ...thinking, thoughtsTokenCount: 300, totalTokenCount: 1300 } } },
        ...pieces.slice(0, -1).map((text) => chunk(text)),
        { data: { ...chunk(pieces.at(-1)!, { finishReason: 'STOP' }).data, usageMetadata: thinking } },
      ],
      crlf: true,
    });
    const { row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, streamPath, body));
    // The text is the whole produced text's count less the thought text's (counted together, then apart).
    const text = tokens(thought + produced) - tokens(thought);
    expect({ ...billed(row), reasoning: Number(row.reasoning_tokens) }).toEqual({ source: 'local', input: 1000, output: 500 + text, reasoning: 500 });
  });

  it('an empty (blocked) answer whose report counts the prompt alone is billed as reported', async () => {
    fixture.primary.gemini.enqueue({ sse: [{ data: { candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'SAFETY', index: 0 }], usageMetadata: promptOnly, responseId: 'r-nocand' } }], crlf: true });
    const { row } = await booked(fixture, () => geminiRaw(fixture.gateway.url, streamPath, body));
    expect(billed(row)).toEqual({ source: 'upstream', input: 1000, output: 0 });
  });
});
