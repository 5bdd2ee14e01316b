/**
 * Helpers of the Responses-API tests: reply rewriting and raw SSE parsing. The books each request must
 * leave are checked by `booked` (test/support/booked-request.ts).
 */
import type { SseEvent, ScriptedReply } from '../fakes/scripted-upstream.js';
export { booked } from '../support/booked-request.js';

export const J = JSON.stringify;

/** The same reply with its SSE events rewritten one by one. */
export function mapEvents(reply: ScriptedReply, rewrite: (event: SseEvent, index: number, all: SseEvent[]) => SseEvent | undefined): ScriptedReply {
  const events = reply.sse ?? [];
  return { ...reply, sse: events.map((event, index) => rewrite(event, index, events)).filter((event): event is SseEvent => event !== undefined) };
}

/** Parses a raw SSE body into `{ event, data }` records (data JSON-parsed when possible). */
export function parseSse(text: string): { event: string | undefined; data: any }[] {
  const out: { event: string | undefined; data: any }[] = [];
  for (const block of text.replaceAll('\r\n', '\n').split('\n\n')) {
    if (block.trim() === '') continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length === 0) continue;
    const joined = data.join('\n');
    let parsed: any = joined;
    try {
      parsed = JSON.parse(joined);
    } catch {
      // kept as text
    }
    out.push({ event, data: parsed });
  }
  return out;
}
