import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { textStyles } from '../relay/text/text-styles.js';
import type { TextStyleName } from '../relay/text-style.js';
import type { SseEvent } from '../streaming/decode-sse.js';

/**
 * `StreamDecoder.complete` tells a finished stream from one the upstream broke off: the attempts treat
 * the second as an interruption (the client is told, interim usage is not billed as final). Read off the
 * recorded streams: whole, each says it is complete; cut before its final event, none does.
 */
const styles: TextStyleName[] = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'];
const sharedRecorded = new URL('../../../shared/reference/recorded/', import.meta.url);

function recordings(style: TextStyleName): [string, SseEvent[]][] {
  const found: [string, SseEvent[]][] = [];
  for (const folder of [new URL(`${style}/`, sharedRecorded), new URL(`./${style}/__fixtures__/`, import.meta.url)]) {
    if (!existsSync(folder)) continue;
    for (const name of readdirSync(folder)) {
      if (!name.endsWith('.chunks.txt')) continue;
      const payloads = readFileSync(new URL(name, folder), 'utf8').split('\n').filter((line) => line.trim() !== '');
      const named = style === 'anthropic-messages' || style === 'openai-responses';
      const events = payloads.map((data) => ({ event: named ? (JSON.parse(data) as { type?: string }).type : undefined, data, id: undefined }));
      if (style === 'openai-chat') events.push({ event: undefined, data: '[DONE]', id: undefined });
      found.push([name, events]);
    }
  }
  return found;
}

/** Whether an event is the stream's last word: a finish, a final event, or an in-band error. */
function isTerminal(style: TextStyleName, event: SseEvent): boolean {
  if (event.data === '[DONE]') return true;
  const json = JSON.parse(event.data) as Record<string, any>;
  switch (style) {
    case 'openai-chat':
      return json.error !== undefined || (json.choices ?? []).some((choice: { finish_reason?: unknown }) => choice.finish_reason != null);
    case 'openai-responses':
      return ['response.completed', 'response.incomplete', 'response.failed', 'error'].includes(json.type);
    case 'anthropic-messages':
      return json.type === 'message_stop' || json.type === 'error' || (json.type === 'message_delta' && json.delta?.stop_reason != null);
    case 'gemini':
      return json.error !== undefined || json.promptFeedback?.blockReason !== undefined || (json.candidates ?? []).some((candidate: { finishReason?: unknown }) => candidate.finishReason !== undefined);
  }
}

function decodeAll(style: TextStyleName, events: SseEvent[]) {
  const decoder = textStyles[style].createDecoder();
  for (const event of events) decoder.push(event);
  return decoder;
}

describe.each(styles)('the %s stream decoder', (style) => {
  const recorded = recordings(style);

  it('has recordings to read', () => {
    expect(recorded.length).toBeGreaterThan(0);
  });

  it.each(recorded)('calls the whole %s complete', (_name, events) => {
    expect(decodeAll(style, events).complete).toBe(true);
  });

  it.each(recorded)('does not call %s complete when it breaks off before its first final event', (_name, events) => {
    const cut = events.findIndex((event) => isTerminal(style, event));
    expect(cut).toBeGreaterThan(0);
    const decoder = decodeAll(style, events.slice(0, cut));
    expect(decoder.complete).toBe(false);
    // end() still closes the stream (its finish is what the attempts no longer bill or show as whole).
    expect(decoder.end().at(-1)?.type).toBe('finish');
  });
});
