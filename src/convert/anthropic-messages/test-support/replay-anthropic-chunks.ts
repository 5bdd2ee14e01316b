import type { CanonicalStreamPart, StreamDecoder } from '../../../canonical/conversion.js';
import { createSseDecoder } from '../../../streaming/decode-sse.js';

/** A `*.chunks.txt` recording (one data payload per line) as the SSE text Anthropic sent: `event:` = the payload's type. */
export function toAnthropicSseText(chunks: string): string {
  return chunks
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join('');
}

/** Feeds SSE text to `decoder` through the real SSE framing, `chunkSize` bytes at a time; returns the parts of each push. */
export function replaySseThroughDecoder(sseText: string, decoder: StreamDecoder, chunkSize = 7): { parts: CanonicalStreamPart[]; pushes: CanonicalStreamPart[][] } {
  const pushes: CanonicalStreamPart[][] = [];
  const framing = createSseDecoder({ maxEventBytes: 1 << 20, onEvent: (event) => pushes.push(decoder.push(event)) });
  const bytes = new TextEncoder().encode(sseText);
  for (let offset = 0; offset < bytes.length; offset += chunkSize) framing.push(bytes.subarray(offset, offset + chunkSize));
  framing.end();
  pushes.push(decoder.end());
  return { parts: pushes.flat(), pushes };
}
