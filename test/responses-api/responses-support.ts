/**
 * Helpers of the Responses-API tests: reply rewriting and raw SSE parsing. The books each request must
 * leave are checked by `booked` (test/support/booked-request.ts).
 */
import type { ScriptedReply, ScriptedRequest, SseEvent } from '../fakes/scripted-upstream.js';
import { responsesStream, responsesWhole, type WireUsage } from '../fakes/scripted-vendor-wire.js';
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

/**
 * A Responses upstream that stores the responses it makes, as OpenAI does (unless `store: false`), and
 * refuses an id it never made with OpenAI's own 400 (`previous_response_not_found`); it answers as asked,
 * streamed or not, with ids `resp_<name>_<run>_<n>`.
 */
export function storingResponsesUpstream(name: string, run: string, answer: (made: number, body: Record<string, unknown>) => { text: string; usage?: WireUsage }) {
  const stored = new Set<string>();
  let made = 0;
  return (request: ScriptedRequest): ScriptedReply => {
    const body = request.body as Record<string, unknown>;
    const previous = body.previous_response_id;
    if (typeof previous === 'string' && !stored.has(previous)) {
      return { status: 400, json: { error: { message: `Previous response with id '${previous}' not found.`, type: 'invalid_request_error', param: 'previous_response_id', code: 'previous_response_not_found' } } };
    }
    made += 1;
    const id = `resp_${name}_${run}_${made}`;
    if (body.store !== false) stored.add(id);
    const { text, usage } = answer(made, body);
    const reply = { id, text, ...(usage === undefined ? {} : { usage }) };
    return body.stream === true ? responsesStream(reply) : responsesWhole(reply);
  };
}
