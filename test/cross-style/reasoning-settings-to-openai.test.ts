/**
 * A reasoning setting converted from another style reaches an OpenAI channel only when its model reasons
 * (from session 34's conversion red team). OpenAI answers 400 "Unsupported parameter: 'reasoning_effort' is
 * not supported with this model" to gpt-4o and gpt-4.1 (Responses: `reasoning.effort`), and the fake
 * upstream here does the same. A Responses client's `reasoning.effort` (Codex), an Anthropic client's
 * `thinking` and `output_config.effort` (Claude Code), a Gemini client's `thinkingConfig`, converted toward a
 * Chat or Responses channel whose model does not reason, were sent as `reasoning_effort` / `reasoning` and the
 * whole request failed for a setting the client never aimed at that model; now they go without it, a warning
 * in the log. A reasoning model still gets the setting; a Chat client's own `reasoning_effort` to a Chat
 * channel is its own choice and passes untouched (refused there, as OpenAI would).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/scripted-upstream.js';
import { replyFor, type WireStyle } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from './harness.js';

/** OpenAI's reasoning models among the names this suite routes; any other model refuses reasoning settings. */
const openaiReasoningModels: ReadonlySet<string> = new Set([M.chatReasoning, M.responses]);

/** The OpenAI upstream: its answer, or its 400 when a model that does not reason is given a reasoning setting. */
function asOpenaiAnswers(style: 'openai-chat' | 'openai-responses') {
  return (request: RecordedRequest) => {
    const body = request.body as Record<string, any>;
    const param = style === 'openai-chat' ? (body.reasoning_effort === undefined ? undefined : 'reasoning_effort') : body.reasoning?.effort !== undefined ? 'reasoning.effort' : body.reasoning?.summary !== undefined ? 'reasoning.summary' : undefined;
    if (param !== undefined && !openaiReasoningModels.has(body.model)) {
      return { status: 400, json: { error: { message: `Unsupported parameter: '${param}' is not supported with this model.`, type: 'invalid_request_error', param, code: 'unsupported_parameter' } } };
    }
    return replyFor(style as WireStyle, { text: 'Paris.', stop: 'stop', usage: { input: 12, output: 3 } }, body.stream === true);
  };
}

describe('reasoning settings converted toward an OpenAI channel', () => {
  let fixture: CrossStyleFixture;
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  const lastBody = () => fixture.upstream.requests.at(-1)!.body as Record<string, unknown>;

  it('a Responses client (openai) with reasoning.effort, to a Chat channel of gpt-4o-mini: answered, reasoning_effort not sent', async () => {
    fixture.upstream.enqueue(asOpenaiAnswers('openai-chat'));
    const answer = await fixture.openai.responses.create({ model: M.chat, input: 'Capital of France?', reasoning: { effort: 'high' } });
    expect(answer.output_text).toBe('Paris.');
    expect(lastBody()).not.toHaveProperty('reasoning_effort');
    expect((await fixture.lastLog()).warnings).toContain(`reasoning effort 'high' is not sent: ${M.chat} takes no reasoning_effort (channel setting reasoning_effort)`);
  });

  it('a Responses client (openai, streamed) with reasoning.effort, to a Chat channel of o4-mini: reasoning_effort sent', async () => {
    fixture.upstream.enqueue(asOpenaiAnswers('openai-chat'));
    const answer = await fixture.openai.responses.stream({ model: M.chatReasoning, input: 'Capital of France?', reasoning: { effort: 'high' } }).finalResponse();
    expect(answer.output_text).toBe('Paris.');
    expect(lastBody().reasoning_effort).toBe('high');
  });

  it('an Anthropic client (@anthropic-ai/sdk) with output_config.effort, to a Chat channel of gpt-4o-mini: answered, reasoning_effort not sent', async () => {
    fixture.upstream.enqueue(asOpenaiAnswers('openai-chat'));
    const answer = await fixture.anthropic.messages.create({ model: M.chat, max_tokens: 256, output_config: { effort: 'high' }, messages: [{ role: 'user', content: 'Capital of France?' }] } as never);
    expect((answer as { content: { type: string; text?: string }[] }).content.map((block) => block.text ?? block.type)).toEqual(['Paris.']);
    expect(lastBody()).not.toHaveProperty('reasoning_effort');
  });

  it('an Anthropic client (@anthropic-ai/sdk, streamed) with thinking on, to a Responses channel of gpt-4.1: answered, reasoning not sent', async () => {
    fixture.upstream.enqueue(asOpenaiAnswers('openai-responses'));
    const answer = await fixture.anthropic.messages.stream({ model: M.responsesPlain, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [{ role: 'user', content: 'Capital of France?' }] }).finalMessage();
    expect(answer.content.map((block) => (block.type === 'text' ? block.text : block.type))).toEqual(['Paris.']);
    expect(lastBody()).not.toHaveProperty('reasoning');
    expect(lastBody()).not.toHaveProperty('include');
    expect((await fixture.lastLog()).warnings.some((warning: string) => warning.includes(`is not sent: ${M.responsesPlain} takes no reasoning settings`))).toBe(true);
  });

  it('an Anthropic client (@anthropic-ai/sdk) with thinking on, to a Responses channel of gpt-5-mini: reasoning sent', async () => {
    fixture.upstream.enqueue(asOpenaiAnswers('openai-responses'));
    await fixture.anthropic.messages.create({ model: M.responses, max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [{ role: 'user', content: 'Capital of France?' }] });
    expect(lastBody()).toMatchObject({ reasoning: { effort: 'low', summary: 'auto' }, include: ['reasoning.encrypted_content'] });
  });

  it('a Gemini client (@google/genai) with thinkingConfig, to a Responses channel of gpt-4.1: answered, reasoning not sent', async () => {
    fixture.upstream.enqueue(asOpenaiAnswers('openai-responses'));
    const answer = await fixture.gemini.models.generateContent({ model: M.responsesPlain, contents: 'Capital of France?', config: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } } });
    expect(answer.text).toBe('Paris.');
    expect(lastBody()).not.toHaveProperty('reasoning');
  });

  it("a Chat client's own reasoning_effort to a Chat channel passes untouched (the client's choice: refused by gpt-4o-mini, as OpenAI would)", async () => {
    fixture.upstream.enqueue(asOpenaiAnswers('openai-chat'));
    const refused = await fixture.openai.chat.completions.create({ model: M.chat, reasoning_effort: 'low', messages: [{ role: 'user', content: 'Capital of France?' }] }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400 });
    expect(lastBody().reasoning_effort).toBe('low');
  });
});
