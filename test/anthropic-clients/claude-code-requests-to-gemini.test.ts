/**
 * What Claude Code sends that a Gemini upstream refused (from the Claude Code session audit): an empty text
 * block in a user turn or the system prompt (Gemini: 400 "required oneof field 'data' must have one
 * initialized field"), and its default thinking budget of 31999, above gemini-2.5-flash's 24576 (a 400 on
 * every thinking turn). The same empty block is checked on the Chat and Responses upstreams (see README.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatStream, geminiStream, responsesStream, type Answer } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from '../cross-style/harness.js';

let fixture: CrossStyleFixture;
beforeAll(async () => {
  fixture = await startCrossStyleFixture();
});
afterAll(async () => {
  await fixture.close();
});

/** Claude Code's first request, trimmed to what matters here: cached system blocks, thinking 31999, streamed. */
function claudeCodeBody(model: string): any {
  return {
    model,
    max_tokens: 32000,
    stream: true,
    system: [
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'You are an interactive CLI tool.', cache_control: { type: 'ephemeral' } },
    ],
    tools: [{ name: 'Bash', description: 'Executes a given bash command', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }],
    thinking: { type: 'enabled', budget_tokens: 31999 },
    messages: [{ role: 'user', content: [{ type: 'text', text: 'list the files' }] }],
  };
}

async function send(body: any): Promise<any> {
  return fixture.anthropic.messages.stream(body).finalMessage();
}

/** The body the upstream received for the request just sent. */
async function sentBody(body: any, reply: ReturnType<typeof geminiStream>): Promise<any> {
  fixture.upstream.clearQueue();
  fixture.upstream.enqueue(reply);
  const before = fixture.upstream.requests.length;
  await send(body);
  return fixture.upstream.requests[before]!.body;
}

const ok: Answer = { text: 'ok', usage: { input: 10, output: 1 } };

describe('an empty text block from Claude Code', () => {
  it('is not sent to Gemini as an empty part (Gemini: "parts[1].data: required oneof field \'data\' must have one initialized field")', async () => {
    const body = claudeCodeBody(M.gemini);
    delete body.thinking;
    body.messages = [{ role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: 'hello' }] }];
    const sent = await sentBody(body, geminiStream(ok));
    expect(sent.contents).toEqual([{ role: 'user', parts: [{ text: 'hello' }] }]);
  });

  it('is not sent in Gemini systemInstruction, which is left out when nothing else is there', async () => {
    const body = claudeCodeBody(M.gemini);
    body.system = [{ type: 'text', text: '' }, { type: 'text', text: 'Be brief.' }];
    expect((await sentBody(body, geminiStream(ok))).systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    body.system = [{ type: 'text', text: '' }];
    expect(await sentBody(body, geminiStream(ok))).not.toHaveProperty('systemInstruction');
  });

  it('among replayed tool results reaches Gemini as no part at all, every turn keeping parts', async () => {
    const body = claudeCodeBody(M.gemini);
    body.messages.push(
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Error: request failed with 404', is_error: true },
          { type: 'text', text: '' },
          { type: 'text', text: 'now summarize', cache_control: { type: 'ephemeral' } },
        ],
      },
    );
    const sent = await sentBody(body, geminiStream(ok));
    for (const content of sent.contents) {
      expect(content.parts.length).toBeGreaterThan(0);
      expect(content.parts.filter((part: any) => part.text === '' && part.thoughtSignature === undefined)).toEqual([]);
    }
    expect(sent.contents.at(-1).parts).toEqual([
      { functionResponse: expect.objectContaining({ name: 'Bash', response: { error: 'Error: request failed with 404' } }) },
      { text: 'now summarize' },
    ]);
  });

  it('is not sent to a Chat Completions upstream as an empty text part (strict compatible servers refuse one)', async () => {
    const body = claudeCodeBody(M.chat);
    const image = { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } };
    body.messages = [{ role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: 'hello' }, image] }];
    const sent = await sentBody(body, chatStream(ok));
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'hello' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] });
  });

  it('is not sent to a Responses upstream as an empty input_text', async () => {
    const body = claudeCodeBody(M.responses);
    body.messages = [{ role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: 'hello' }] }];
    const sent = await sentBody(body, responsesStream(ok));
    expect(sent.input.at(-1)).toEqual({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello' }] });
  });
});

describe("Claude Code's thinking budget on Gemini 2.5", () => {
  const thinkingAnswer: Answer = { thinking: { text: 'Listing.', signature: 'sig-1' }, text: 'Done.', stop: 'stop', usage: { input: 100, output: 60, reasoning: 40 } };

  it('31999 reaches gemini-2.5-flash as 24576, its largest (Gemini refuses a larger thinkingBudget with a 400), with a warning in the log row', async () => {
    const sent = await sentBody(claudeCodeBody(M.gemini), geminiStream(thinkingAnswer));
    expect(sent.generationConfig.thinkingConfig).toEqual({ thinkingBudget: 24576, includeThoughts: true });
    expect(sent.generationConfig.maxOutputTokens).toBe(32000);
    const log = await fixture.lastLog();
    expect(JSON.stringify(log.warnings)).toContain('thinking budget 31999 sent as 24576');
    // Billed what Gemini reports, as any other budget is.
    expect(log).toMatchObject({ status: 200, usage_source: 'upstream', input_tokens: 100, output_tokens: 60, reasoning_tokens: 40 });
    const clampedQuota = log.quota;
    expect(clampedQuota).toBeGreaterThan(0);
    const unclamped = claudeCodeBody(M.gemini);
    unclamped.thinking.budget_tokens = 1024;
    await sentBody(unclamped, geminiStream(thinkingAnswer));
    const other = await fixture.lastLog();
    expect(JSON.stringify(other.warnings ?? '')).not.toContain('thinking budget');
    expect(other.quota).toBe(clampedQuota);
  });
});
