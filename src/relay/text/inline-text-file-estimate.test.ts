import { describe, expect, it } from 'vitest';
import { buildChatInbound, buildParsedInbound } from './build-text-inbound.js';

/**
 * docs/behaviour.md (tool-result files bullet): "An inline `text/*` file, in a tool result or a user turn, is
 * estimated and counted locally as its text (every vendor bills it as text), not as a flat per-file figure."
 * From the session review: a Chat client's user-turn `file` part with a `data:text/plain` file_data (sent
 * converted to an Anthropic, Gemini or Responses upstream, which bill it as text) was still estimated by
 * collectChatPromptText at the flat per-file figure.
 */
const big = 'The quick brown fox jumps over the lazy dog. '.repeat(4_000); // ~40k tokens
const dataUrl = `data:text/plain;base64,${Buffer.from(big).toString('base64')}`;

describe('a large inline text/plain file in a user turn', () => {
  it('Responses client: estimated as its text (control)', async () => {
    const inbound = buildParsedInbound('openai-responses', {
      model: 'm',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'Read' }, { type: 'input_file', filename: 'notes.txt', file_data: dataUrl }] }],
    }, undefined);
    expect(inbound.estimatedPromptTokens).toBeGreaterThan(30_000);
  });

  it('Chat client: estimated and counted as its text, not 1,000 tokens', async () => {
    const body = { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'Read' }, { type: 'file', file: { filename: 'notes.txt', file_data: dataUrl } }] }] };
    const inbound = buildChatInbound(body, undefined, 16);
    // The canonical form (what a converted upstream is sent) holds the file as text/plain.
    expect(JSON.stringify(inbound.canonical().messages)).toContain('text/plain');
    expect({ estimate: inbound.estimatedPromptTokens > 30_000, counted: (await inbound.countPromptTokens()) > 30_000 }).toEqual({ estimate: true, counted: true });
  });
});
