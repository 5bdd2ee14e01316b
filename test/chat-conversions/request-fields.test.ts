/**
 * What a Chat Completions request (openai SDK) carries into each converted upstream (Responses,
 * Anthropic, Gemini), and whether what an upstream cannot honour is a clear 400 (OpenAI envelope, no
 * charge, no upstream call) or a documented drop with a warning in the log row.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, startBillingFixture, type BillingFixture } from '../billing-edges/billing-fixture.js';
import type { WireStyle } from '../fakes/scripted-vendor-wire.js';

const converted: WireStyle[] = ['openai-responses', 'anthropic', 'gemini'];
const hi = [{ role: 'user' as const, content: 'Say hello' }];

describe('Chat client → converted upstreams: request fields', () => {
  let fixture: BillingFixture;
  beforeAll(async () => {
    // 'billed-responses' names no reasoning model: the channel says it takes reasoning settings.
    fixture = await startBillingFixture({ channelSettings: { 'openai-responses': { reasoning_effort: true } } });
  });
  afterAll(async () => {
    await fixture.close();
  });

  const lastBody = (style: WireStyle) => fixture.primary[style].requests.at(-1)?.body as any;
  const lastWarnings = async (): Promise<string[]> => JSON.parse((await fixture.logs()).at(-1).warnings ?? '[]');
  const count = (style: WireStyle) => fixture.primary[style].requests.length;

  /** Sends, expects an OpenAI 400 naming `param`, and checks nothing was charged, no upstream call, no open reservation. */
  async function expectRefusal(style: WireStyle, body: Record<string, unknown>, param: string) {
    const before = await fixture.balances();
    const calls = count(style);
    const error: any = await fixture.sdk.openai.chat.completions.create({ model: modelOf[style], messages: hi, ...body } as any).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.status).toBe(400);
    expect(error.param).toBe(param);
    expect(error.error?.type).toBeTypeOf('string');
    expect(error.message).toContain('request id');
    await fixture.settled();
    expect(count(style)).toBe(calls);
    const after = await fixture.balances();
    expect(after.tokenUsed).toBe(before.tokenUsed);
    expect(after.userUsed).toBe(before.userUsed);
    expect((await fixture.reservations()).filter((row) => row.state === 'reserved')).toEqual([]);
  }

  describe.each(converted)('→ %s', (style) => {
    const model = modelOf[style];

    it('n > 1: 400 naming n, nothing charged, no upstream call (non-streamed and streamed)', async () => {
      await expectRefusal(style, { n: 2 }, 'n');
      await expectRefusal(style, { n: 3, stream: true }, 'n');
    });

    it('legacy functions / function_call: 400 naming the field, nothing charged', async () => {
      await expectRefusal(style, { functions: [{ name: 'f', parameters: { type: 'object', properties: {} } }] }, 'functions');
      await expectRefusal(style, { function_call: 'auto' }, 'function_call');
    });

    it('n: 1 is served as usual', async () => {
      const completion = await fixture.sdk.openai.chat.completions.create({ model, messages: hi, n: 1 });
      expect(completion.choices).toHaveLength(1);
      expect(completion.choices[0]!.index).toBe(0);
    });

    it('logprobs / top_logprobs: answered without logprobs, the drop is a warning in the log', async () => {
      const completion = await fixture.sdk.openai.chat.completions.create({ model, messages: hi, logprobs: true, top_logprobs: 2 });
      expect(completion.choices[0]!.logprobs ?? null).toBeNull();
      expect((await lastWarnings()).join('\n')).toMatch(/logprobs/);
      const body = lastBody(style);
      expect(JSON.stringify(body)).not.toContain('logprobs');
    });

    it('max_completion_tokens wins over max_tokens, in the upstream body and in the reservation', async () => {
      const reserved = async (body: Record<string, unknown>) => {
        const { response } = await fixture.sdk.openai.chat.completions.create({ model, messages: hi, ...body } as any).withResponse();
        const id = response.headers.get('x-request-id');
        await fixture.settled();
        return (await fixture.reservations()).find((row) => row.id === id)!.amount;
      };
      const both = await reserved({ max_tokens: 100, max_completion_tokens: 300 });
      const body = lastBody(style);
      const sent = style === 'openai-responses' ? body.max_output_tokens : style === 'anthropic' ? body.max_tokens : body.generationConfig?.maxOutputTokens;
      expect(sent).toBe(300);
      expect(both).toBe(await reserved({ max_completion_tokens: 300 }));
      expect(both).toBeGreaterThan(await reserved({ max_tokens: 100 }));
    });

    it('developer role → the system prompt; name on a message → warning', async () => {
      await fixture.sdk.openai.chat.completions.create({
        model,
        messages: [{ role: 'developer', content: 'Be terse.' }, { role: 'user', content: 'Say hello', name: 'alice' }],
      });
      const body = lastBody(style);
      const system = style === 'openai-responses' ? body.instructions : style === 'anthropic' ? body.system : body.systemInstruction?.parts?.[0]?.text;
      expect(system).toBe('Be terse.');
      expect((await lastWarnings()).join('\n')).toMatch(/name/);
    });

    it('an assistant turn with `refusal` is carried as text (warning)', async () => {
      await fixture.sdk.openai.chat.completions.create({
        model,
        messages: [
          { role: 'user', content: 'do the bad thing' },
          { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
          { role: 'user', content: 'ok, say hello' },
        ],
      });
      expect(JSON.stringify(lastBody(style))).toContain('I cannot help with that.');
      expect((await lastWarnings()).join('\n')).toMatch(/refusal/);
    });

    it('metadata, store, service_tier, prediction, web_search_options, modalities/audio: named in one "not carried" warning', async () => {
      await fixture.sdk.openai.chat.completions.create({
        model,
        messages: hi,
        metadata: { project: 'x' },
        store: true,
        service_tier: 'flex',
        prediction: { type: 'content', content: 'Hello' },
        web_search_options: {},
        modalities: ['text', 'audio'],
        audio: { voice: 'alloy', format: 'wav' },
      } as any);
      const warnings = (await lastWarnings()).join('\n');
      for (const field of ['metadata', 'store', 'service_tier', 'prediction', 'web_search_options', 'modalities', 'audio']) expect(warnings).toContain(field);
      const body = JSON.stringify(lastBody(style));
      expect(body).not.toContain('"prediction"');
      expect(body).not.toContain('"modalities"');
    });

    it('tools with strict: a warning (the schema itself is carried)', async () => {
      await fixture.sdk.openai.chat.completions.create({
        model,
        messages: hi,
        tools: [{ type: 'function', function: { name: 'get_weather', strict: true, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } }],
      });
      expect((await lastWarnings()).join('\n')).toMatch(/strict/);
      expect(JSON.stringify(lastBody(style))).toContain('get_weather');
    });

    it('a file_id file part is dropped with a warning; a PDF file_data part is carried', async () => {
      await fixture.sdk.openai.chat.completions.create({
        model,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Read this' }, { type: 'file', file: { file_id: 'file-abc' } }, { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0xLjQK' } }] }],
      });
      expect((await lastWarnings()).join('\n')).toMatch(/file-abc/);
      expect(JSON.stringify(lastBody(style))).toContain('JVBERi0xLjQK');
    });
  });

  // ---------------------------------------------------------------- per upstream

  it('→ anthropic: user → metadata.user_id, parallel_tool_calls false → disable_parallel_tool_use, stop array → stop_sequences, seed → warning', async () => {
    await fixture.sdk.openai.chat.completions.create({
      model: modelOf.anthropic,
      messages: hi,
      user: 'end-user-7',
      seed: 42,
      stop: ['END', 'STOP', 'x', 'y', 'z'],
      parallel_tool_calls: false,
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
    });
    const body = lastBody('anthropic');
    expect(body.metadata).toEqual({ user_id: 'end-user-7' });
    expect(body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(body.stop_sequences).toEqual(['END', 'STOP', 'x', 'y', 'z']);
    expect(body.seed).toBeUndefined();
    expect((await lastWarnings()).join('\n')).toMatch(/seed/);
  });

  it('→ anthropic: a string stop becomes one stop sequence', async () => {
    await fixture.sdk.openai.chat.completions.create({ model: modelOf.anthropic, messages: hi, stop: 'END' });
    expect(lastBody('anthropic').stop_sequences).toEqual(['END']);
  });

  it('→ responses: user → safety_identifier, parallel_tool_calls false kept, seed/stop dropped with warnings, store false', async () => {
    await fixture.sdk.openai.chat.completions.create({
      model: modelOf['openai-responses'],
      messages: hi,
      user: 'end-user-7',
      seed: 42,
      stop: ['END'],
      parallel_tool_calls: false,
      store: true,
    });
    const body = lastBody('openai-responses');
    expect(body.safety_identifier).toBe('end-user-7');
    expect(body.parallel_tool_calls).toBe(false);
    expect(body.store).toBe(false);
    expect(body.seed).toBeUndefined();
    const warnings = (await lastWarnings()).join('\n');
    expect(warnings).toMatch(/seed/);
    expect(warnings).toMatch(/stop/);
  });

  it('→ gemini: seed → generationConfig.seed, stop → stopSequences, user and parallel_tool_calls false → warnings', async () => {
    await fixture.sdk.openai.chat.completions.create({
      model: modelOf.gemini,
      messages: hi,
      user: 'end-user-7',
      seed: 42,
      stop: ['END', 'STOP'],
      parallel_tool_calls: false,
    });
    const body = lastBody('gemini');
    expect(body.generationConfig.seed).toBe(42);
    expect(body.generationConfig.stopSequences).toEqual(['END', 'STOP']);
    const warnings = (await lastWarnings()).join('\n');
    expect(warnings).toMatch(/user/);
    expect(warnings).toMatch(/parallel/i);
  });

  it.each([
    ['openai-responses', (body: any) => body.reasoning?.effort, 'low'],
    ['anthropic', (body: any) => body.thinking?.type, 'enabled'],
    ['gemini', (body: any) => JSON.stringify(body.generationConfig?.thinkingConfig ?? null), expect.stringMatching(/thinking(Level|Budget)/)],
  ] as const)('reasoning_effort low → %s', async (style, read, expected) => {
    await fixture.sdk.openai.chat.completions.create({ model: modelOf[style], messages: hi, reasoning_effort: 'low' });
    expect(read(lastBody(style))).toEqual(expected);
  });

  it.each(converted)('reasoning_effort "none" (gpt-5.1) / "xhigh" → %s: a warning, not a 400 or a crash', async (style) => {
    for (const effort of ['none', 'xhigh']) {
      const completion = await fixture.sdk.openai.chat.completions.create({ model: modelOf[style], messages: hi, reasoning_effort: effort as any });
      expect(completion.choices[0]!.message.content).toBe('Hello');
      expect((await lastWarnings()).join('\n')).toContain(effort);
    }
  });

  it('input_audio → gemini: inlineData with the audio media type', async () => {
    await fixture.sdk.openai.chat.completions.create({
      model: modelOf.gemini,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Transcribe' }, { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] }],
    });
    const parts = lastBody('gemini').contents[0].parts;
    expect(parts).toContainEqual({ inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } });
  });

  it('input_audio → anthropic: dropped with a warning (Anthropic takes no audio)', async () => {
    await fixture.sdk.openai.chat.completions.create({
      model: modelOf.anthropic,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Transcribe' }, { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] }],
    });
    expect(JSON.stringify(lastBody('anthropic'))).not.toContain('UklGRg==');
    expect((await lastWarnings()).join('\n')).toMatch(/audio\/wav/);
  });

  it('input_audio → responses: dropped with a warning (Responses input takes text, images and files only)', async () => {
    await fixture.sdk.openai.chat.completions.create({
      model: modelOf['openai-responses'],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Transcribe' }, { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] }],
    });
    expect(lastBody('openai-responses').input[0].content).toEqual([{ type: 'input_text', text: 'Transcribe' }]);
    expect((await lastWarnings()).join('\n')).toMatch(/audio input cannot be sent to a Responses upstream/);
  });
});
