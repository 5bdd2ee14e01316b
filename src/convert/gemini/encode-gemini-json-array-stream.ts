import type { StreamEncoder } from '../../canonical/conversion.js';
import { createSseDecoder } from '../../streaming/decode-sse.js';

/**
 * For clients that call streamGenerateContent without `alt=sse`: wraps the Gemini SSE encoder so that
 * each event becomes an element of one JSON array written over time, as Google does — `[` before the
 * first element, `,` between them (after Google's CRLF), `]` at the end (`[]` when nothing came).
 */
export function encodeGeminiJsonArrayStream(sseEncoder: StreamEncoder): StreamEncoder {
  let elements = 0;
  let closed = false;
  let output = '';
  const events = createSseDecoder({
    maxEventBytes: Number.MAX_SAFE_INTEGER,
    onEvent(event) {
      output += `${elements++ === 0 ? '[' : '\r\n,'}${event.data}`;
    },
  });
  const translate = (sse: string) => {
    output = '';
    if (sse !== '') events.push(Buffer.from(sse, 'utf8'));
    return output;
  };

  return {
    get warnings() {
      return sseEncoder.warnings;
    },
    encode(part) {
      return closed ? '' : translate(sseEncoder.encode(part));
    },
    end() {
      if (closed) return '';
      closed = true;
      const rest = translate(sseEncoder.end());
      return `${rest}${elements === 0 ? '[]' : '\r\n]'}`;
    },
  };
}
