import type { CanonicalStreamPart } from '../../../canonical/canonical-stream-part.js';
import type { StreamDecoder, StreamEncoder } from '../../../canonical/conversion.js';
import { createSseDecoder, type SseEvent } from '../../../streaming/decode-sse.js';

/** SSE text → events, through the gateway's own framing layer, fed in chunks of `chunkBytes` bytes. */
export function readSseEvents(text: string, chunkBytes = 1 << 20): SseEvent[] {
  const events: SseEvent[] = [];
  const decoder = createSseDecoder({ maxEventBytes: 1 << 22, onEvent: (event) => events.push(event) });
  const bytes = Buffer.from(text, 'utf8');
  for (let offset = 0; offset < bytes.length; offset += chunkBytes) decoder.push(bytes.subarray(offset, offset + chunkBytes));
  decoder.end();
  return events;
}

/** Feeds an SSE body to a decoder `chunkBytes` bytes at a time; returns every part with the events that produced it. */
export function decodeBody(decoder: StreamDecoder, body: string, chunkBytes?: number): CanonicalStreamPart[] {
  const parts: CanonicalStreamPart[] = [];
  for (const event of readSseEvents(body, chunkBytes)) parts.push(...decoder.push(event));
  parts.push(...decoder.end());
  return parts;
}

/** Encodes parts, then the end: the whole client body. */
export function encodeParts(encoder: StreamEncoder, parts: readonly CanonicalStreamPart[]): string {
  return parts.map((part) => encoder.encode(part)).join('') + encoder.end();
}

/** Client SSE text → `{ event, data }` with data parsed, one per event, for golden files. */
export function toWireEvents(text: string): { event: string | undefined; data: unknown }[] {
  return readSseEvents(text).map((event) => ({ event: event.event, data: JSON.parse(event.data) as unknown }));
}
