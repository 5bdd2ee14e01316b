import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyAsAsked } from '../fakes/scripted-vendor-wire.js';
import { M, startCrossStyleFixture, type CrossStyleFixture } from '../cross-style/harness.js';

/**
 * Claude Code marks its system prompt and tools with cache_control and declares server tools. Relayed to an
 * Anthropic channel they arrive as sent, so the log row must not say they were dropped (operators read
 * "cache_control breakpoints are not carried" as prompt caching lost on every request); converted, they are
 * dropped and the row says so.
 */
const request = {
  max_tokens: 50,
  system: [{ type: 'text' as const, text: 'You are a coding agent.', cache_control: { type: 'ephemeral' as const } }],
  tools: [
    { name: 'read_file', description: 'Reads a file', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } }, cache_control: { type: 'ephemeral' as const } },
    { type: 'web_search_20250305' as const, name: 'web_search' as const },
  ],
  messages: [{ role: 'user' as const, content: 'Hello' }],
};

describe('the log row of an Anthropic request names only what its upstream lost', () => {
  let fixture: CrossStyleFixture;
  const warnings = async () => JSON.stringify((await fixture.lastLog()).warnings ?? []);
  beforeAll(async () => {
    fixture = await startCrossStyleFixture();
  });
  afterAll(async () => {
    await fixture.close();
  });

  it.each([false, true])('relayed to an Anthropic channel (stream=%s): cache_control and the server tool arrive, and no warning says they were dropped', async (stream) => {
    fixture.upstream.enqueue(replyAsAsked('anthropic', { text: 'Hi', usage: { input: 10, output: 1 } }));
    if (stream) await fixture.anthropic.messages.stream({ ...request, model: M.anthropic }).finalMessage();
    else await fixture.anthropic.messages.create({ ...request, model: M.anthropic });
    const sent = fixture.upstream.requests.at(-1)!.body;
    expect(sent.system[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(sent.tools[1]).toEqual({ type: 'web_search_20250305', name: 'web_search' });
    expect(await warnings()).not.toContain('not carried');
  });

  it('converted for a Chat channel: the row names what was dropped', async () => {
    fixture.upstream.enqueue(replyAsAsked('openai-chat', { text: 'Hi', usage: { input: 10, output: 1 } }));
    await fixture.anthropic.messages.create({ ...request, model: M.chat });
    const logged = await warnings();
    expect(logged).toContain('cache_control breakpoints are not carried');
    expect(logged).toContain("the Anthropic server tool 'web_search' (web_search_20250305) is not carried");
  });
});
