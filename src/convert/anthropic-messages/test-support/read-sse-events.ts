import { createSseDecoder } from '../../../streaming/decode-sse.js';

export interface WireEvent {
  event: string | undefined;
  data: unknown;
}

/** Encoder output → its SSE events, `data` parsed as JSON: the readable form of the encode goldens. */
export function readSseEvents(sseText: string): WireEvent[] {
  const events: WireEvent[] = [];
  const framing = createSseDecoder({ maxEventBytes: 1 << 20, onEvent: (event) => events.push({ event: event.event, data: JSON.parse(event.data) as unknown }) });
  framing.push(new TextEncoder().encode(sseText));
  framing.end();
  return events;
}
