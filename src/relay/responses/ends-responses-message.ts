import { isRecord } from '../../convert/shared/is-record.js';

/**
 * Whether a Responses stream event (its `data`) finishes the answer's message: `response.output_text.done`
 * or `response.refusal.done`, the `response.content_part.done` of its text, or the
 * `response.output_item.done` of a `message` item. What usually follows is the answer's closing
 * `response.completed`, with the usage — the reasoning tokens among it — that a local count of the visible
 * text cannot know; when more output begins instead, {@link startsResponsesOutput} ends the wait. A finished reasoning item or tool call is not the end: a message may still follow.
 * Parsed whole: it runs once, on the last event read, when a client leaves.
 */
export function endsResponsesMessage(data: string): boolean {
  const event = parseEvent(data);
  if (event === undefined) return false;
  switch (event.type) {
    case 'response.output_text.done':
    case 'response.refusal.done':
      return true;
    case 'response.content_part.done':
      return isRecord(event.part) && (event.part.type === 'output_text' || event.part.type === 'refusal');
    case 'response.output_item.done':
      return isRecord(event.item) && event.item.type === 'message';
    default:
      return false;
  }
}

/**
 * Whether a Responses stream event begins more output (`….added`, `….delta`): read while a client that left
 * is waited out for the usage, it means the message was not the answer's last item (a tool call after a
 * preamble, another message), and reading on would have the upstream produce what no one will read.
 */
export function startsResponsesOutput(data: string): boolean {
  const type = parseEvent(data)?.type;
  return typeof type === 'string' && (type.endsWith('.added') || type.endsWith('.delta'));
}

/** An event's data as an object; undefined when it is not JSON or not an object. */
function parseEvent(data: string): Record<string, unknown> | undefined {
  try {
    const event: unknown = JSON.parse(data);
    return isRecord(event) ? event : undefined;
  } catch {
    return undefined;
  }
}
