/**
 * A converted reasoning setting reaches each upstream only in a form its model takes (the follow-up to
 * reasoning-settings-to-openai.test.ts). OpenAI refuses an effort a reasoning model does not take (400
 * "Unsupported value: 'minimal' is not supported with the 'o3' model. Supported values are: 'low', 'medium',
 * and 'high'."); Claude 3.5 has no extended thinking and refuses `thinking`; Gemini 2.0 refuses
 * `thinkingConfig` (400 "thinking_config is not supported."). The fake upstream here answers each the same
 * way. A client's setting of another style, converted toward such a model, failed the whole request: now
 * the effort is the nearest the model takes, and thinking the model does not have is not asked for (a
 * warning in the log). A model that thinks still gets the setting; a same-style client's own is sent as it
 * is: it chose it for that model.
 */
import { ThinkingLevel } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/scripted-upstream.js';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

/** The efforts the o-series takes (OpenAI's API reference). */
const oSeriesEfforts = new Set(['low', 'medium', 'high']);

/** The reason an upstream of this suite refuses a request's reasoning setting, as its vendor would; undefined when it takes it. */
function refusal(style: WireStyle, body: Record<string, any>, path: string): { status: number; json: unknown } | undefined {
  if (style === 'openai-chat' || style === 'openai-responses') {
    const effort = style === 'openai-chat' ? body.reasoning_effort : body.reasoning?.effort;
    if (/^o\d/.test(body.model) && effort !== undefined && !oSeriesEfforts.has(effort)) {
      const message = `Unsupported value: '${effort}' is not supported with the '${body.model}' model. Supported values are: 'low', 'medium', and 'high'.`;
      return { status: 400, json: { error: { message, type: 'invalid_request_error', param: style === 'openai-chat' ? 'reasoning_effort' : 'reasoning.effort', code: 'unsupported_value' } } };
    }
  }
  if (style === 'anthropic' && body.model === M.anthropicThinkless && body.thinking !== undefined) {
    return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: `thinking: extended thinking is not supported by ${body.model}` } } };
  }
  if (style === 'gemini' && path.includes(M.geminiThinkless) && body.generationConfig?.thinkingConfig !== undefined) {
    return { status: 400, json: { error: { code: 400, message: 'thinking_config is not supported.', status: 'INVALID_ARGUMENT' } } };
  }
  return undefined;
}

/** The upstream: its answer, or its vendor's 400 for a reasoning setting the model does not take. */
function answersAs(style: WireStyle) {
  return (request: RecordedRequest) => {
    const body = request.body as Record<string, any>;
    return refusal(style, body, request.path) ?? replyFor(style, { text: 'Paris.', stop: 'stop', usage: { input: 12, output: 3 } }, body.stream === true || request.path.includes('stream'));
  };
}

describe('reasoning settings converted toward a model that takes them only in part', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  const last = () => fixture.upstream.requests.at(-1)!;
  const lastBody = () => last().body as Record<string, any>;
  const question = [{ role: 'user' as const, content: 'Capital of France?' }];

  it("an Anthropic client (@anthropic-ai/sdk, Claude Code's thinking off) to a Responses channel of o3: reasoning.effort 'low', not 'minimal'", async () => {
    fixture.upstream.enqueue(answersAs('openai-responses'));
    const answer = await fixture.anthropic.messages.create({ model: M.responsesO3, max_tokens: 1024, system: 'You are Claude Code.', thinking: { type: 'disabled' }, messages: question });
    expect(answer.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual(['Paris.']);
    expect(lastBody().reasoning).toEqual({ effort: 'low' });
    expect((await fixture.lastLog()).warnings).toContain("reasoning effort 'minimal' sent as 'low': o3 takes 'low', 'medium', 'high'");
  });

  it("an Anthropic client (@anthropic-ai/sdk, streamed) thinking with a budget, to a Responses channel of o3: an effort o3 takes", async () => {
    fixture.upstream.enqueue(answersAs('openai-responses'));
    const answer = await fixture.anthropic.messages.stream({ model: M.responsesO3, max_tokens: 32000, thinking: { type: 'enabled', budget_tokens: 31999 }, messages: question }).finalMessage();
    expect(answer.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual(['Paris.']);
    expect(lastBody().reasoning).toMatchObject({ effort: 'high' });
  });

  it("a Gemini client (@google/genai) with thinkingLevel MINIMAL, to a Chat channel of o4-mini: reasoning_effort 'low'", async () => {
    fixture.upstream.enqueue(answersAs('openai-chat'));
    const answer = await fixture.gemini.models.generateContent({ model: M.chatReasoning, contents: 'Capital of France?', config: { thinkingConfig: { thinkingLevel: ThinkingLevel.MINIMAL } } });
    expect(answer.text).toBe('Paris.');
    expect(lastBody().reasoning_effort).toBe('low');
  });

  it("an Anthropic client (@anthropic-ai/sdk, streamed) thinking with Claude Code's budget, to a Chat channel of o4-mini: reasoning_effort 'high'", async () => {
    fixture.upstream.enqueue(answersAs('openai-chat'));
    const answer = await fixture.anthropic.messages.stream({ model: M.chatReasoning, max_tokens: 32000, thinking: { type: 'enabled', budget_tokens: 31999 }, messages: question }).finalMessage();
    expect(answer.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual(['Paris.']);
    expect(lastBody().reasoning_effort).toBe('high');
    expect((await fixture.lastLog()).warnings).toContain('reasoning budget of 31999 tokens is approximated as effort "high"');
  });

  it("an Anthropic client (@anthropic-ai/sdk) with thinking off, to a Chat channel of o4-mini: reasoning_effort 'low', the least o4-mini takes", async () => {
    fixture.upstream.enqueue(answersAs('openai-chat'));
    const answer = await fixture.anthropic.messages.create({ model: M.chatReasoning, max_tokens: 1024, thinking: { type: 'disabled' }, messages: question });
    expect(answer.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual(['Paris.']);
    expect(lastBody().reasoning_effort).toBe('low');
    expect((await fixture.lastLog()).warnings).toContain("reasoning effort 'minimal' sent as 'low': o4-mini takes 'low', 'medium', 'high'");
  });

  it("a Gemini client (@google/genai) with thinkingBudget 2048, and with 0 (off), to a Chat channel of o4-mini: reasoning_effort 'low'", async () => {
    fixture.upstream.enqueue(answersAs('openai-chat'));
    const answer = await fixture.gemini.models.generateContent({ model: M.chatReasoning, contents: 'Capital of France?', config: { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } } });
    expect(answer.text).toBe('Paris.');
    expect(lastBody().reasoning_effort).toBe('low');
    fixture.upstream.enqueue(answersAs('openai-chat'));
    await fixture.gemini.models.generateContent({ model: M.chatReasoning, contents: 'Capital of France?', config: { thinkingConfig: { thinkingBudget: 0 } } });
    expect(lastBody().reasoning_effort).toBe('low');
  });

  it("a Gemini client (@google/genai, streamed) with the dynamic thinkingBudget -1, to a Chat channel of o4-mini: no reasoning_effort, the model decides", async () => {
    fixture.upstream.enqueue(answersAs('openai-chat'));
    let text = '';
    for await (const chunk of await fixture.gemini.models.generateContentStream({ model: M.chatReasoning, contents: 'Capital of France?', config: { thinkingConfig: { thinkingBudget: -1 } } })) text += chunk.text ?? '';
    expect(text).toBe('Paris.');
    expect(lastBody()).not.toHaveProperty('reasoning_effort');
    expect((await fixture.lastLog()).warnings).toContain('a dynamic reasoning budget is sent as no effort: the upstream model decides');
  });

  it('a Chat client (openai) with reasoning_effort, to an Anthropic channel of claude-3-5-sonnet: answered, thinking not sent', async () => {
    fixture.upstream.enqueue(answersAs('anthropic'));
    const answer = await fixture.openai.chat.completions.create({ model: M.anthropicThinkless, reasoning_effort: 'high', messages: question });
    expect(answer.choices[0]?.message.content).toBe('Paris.');
    expect(lastBody()).not.toHaveProperty('thinking');
    expect((await fixture.lastLog()).warnings).toContain(`thinking is not sent: ${M.anthropicThinkless} has no extended thinking (channel setting reasoning_effort)`);
  });

  it('a Gemini client (@google/genai, streamed) with thinkingConfig, to an Anthropic channel of claude-3-5-sonnet: answered, thinking not sent', async () => {
    fixture.upstream.enqueue(answersAs('anthropic'));
    let text = '';
    for await (const chunk of await fixture.gemini.models.generateContentStream({ model: M.anthropicThinkless, contents: 'Capital of France?', config: { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } } })) text += chunk.text ?? '';
    expect(text).toBe('Paris.');
    expect(lastBody()).not.toHaveProperty('thinking');
  });

  it('a Chat client (openai) with reasoning_effort, to an Anthropic channel of claude-sonnet-4-5: thinking sent', async () => {
    fixture.upstream.enqueue(answersAs('anthropic'));
    await fixture.openai.chat.completions.create({ model: M.anthropic, reasoning_effort: 'high', max_completion_tokens: 16000, messages: question });
    expect(lastBody().thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
  });

  it('a Chat client (openai) with reasoning_effort, to a Gemini channel of gemini-2.0-flash: answered, thinkingConfig not sent', async () => {
    fixture.upstream.enqueue(answersAs('gemini'));
    const answer = await fixture.openai.chat.completions.create({ model: M.geminiThinkless, reasoning_effort: 'low', messages: question });
    expect(answer.choices[0]?.message.content).toBe('Paris.');
    expect(lastBody().generationConfig ?? {}).not.toHaveProperty('thinkingConfig');
    expect((await fixture.lastLog()).warnings).toContain(`thinkingConfig is not sent: ${M.geminiThinkless} takes no thinking settings (channel setting reasoning_effort)`);
  });

  it('an Anthropic client (@anthropic-ai/sdk, streamed) with thinking on, to a Gemini channel of gemini-2.0-flash: answered, thinkingConfig not sent', async () => {
    fixture.upstream.enqueue(answersAs('gemini'));
    const answer = await fixture.anthropic.messages.stream({ model: M.geminiThinkless, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: question }).finalMessage();
    expect(answer.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual(['Paris.']);
    expect(lastBody().generationConfig ?? {}).not.toHaveProperty('thinkingConfig');
  });

  it('a Responses client (openai) with reasoning.effort, to a Gemini channel of gemini-2.5-flash: thinkingConfig sent', async () => {
    fixture.upstream.enqueue(answersAs('gemini'));
    await fixture.openai.responses.create({ model: M.gemini, input: 'Capital of France?', reasoning: { effort: 'low' } });
    expect(lastBody().generationConfig.thinkingConfig).toEqual({ thinkingBudget: 1024 });
  });

  it("an Anthropic client's own thinking to claude-3-5-sonnet, and a Gemini client's own thinkingConfig to gemini-2.0-flash, pass untouched (their choice: refused, as the vendor would)", async () => {
    fixture.upstream.enqueue(answersAs('anthropic'));
    const refused = await fixture.anthropic.messages.create({ model: M.anthropicThinkless, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: question }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400 });
    expect(lastBody().thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    fixture.upstream.enqueue(answersAs('gemini'));
    const refusedToo = await fixture.gemini.models.generateContent({ model: M.geminiThinkless, contents: 'Capital of France?', config: { thinkingConfig: { thinkingBudget: 1024 } } }).catch((error: unknown) => error);
    expect(refusedToo).toMatchObject({ status: 400 });
    expect(lastBody().generationConfig.thinkingConfig).toEqual({ thinkingBudget: 1024 });
  });
});
