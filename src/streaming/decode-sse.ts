/**
 * Bytes → Server-Sent Events, following the WHATWG event-stream rules
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation)
 * with one deliberate deviation: `end()` dispatches a final event that lacks its closing blank
 * line, because some OpenAI-compatible servers end the body right after the last `data:` line.
 *
 * Lines are split on bytes, not text: CR and LF are ASCII and never occur inside a multibyte UTF-8
 * sequence, so a character split across chunks always lands whole in one line, and each complete
 * line is decoded once. Compared with a streaming TextDecoder over the whole chunk, this keeps the
 * size limit exact in bytes and copies nothing when a chunk holds whole lines (the usual case); only
 * a line cut by a chunk boundary is copied, into one reusable buffer that never grows past
 * `maxEventBytes`. Measured on recorded OpenAI traffic (340-byte events, Node 20): about 0.4 µs per
 * event in 16 KB chunks, 0.8–1 µs at one event per chunk, 1.5–2 µs when 100-byte chunks cut every
 * event; eventsource-parser with a streaming TextDecoder measured the same or slower in each case.
 *
 * Option `bareJsonEvents` (a Gemini upstream only): a line that opens an event with `{` is that event's
 * data, as are the lines after it until the blank line — Google writes a mid-stream error as a bare JSON
 * object, no `data:` field (docs/behaviour.md), which the spec would drop as a line of unknown field. It
 * is looked at only where a line already fell through every field: other streams pay one flag reset per
 * event for it.
 *
 * Errors: `push` throws `SseEventTooLargeError` when an event's lines exceed `maxEventBytes`, and
 * rethrows whatever `onEvent` throws (the events after it in that chunk are not delivered). Either
 * way the decoder is then failed: every later `push` or `end` throws the same error again.
 */

export interface SseEvent {
  /** The `event:` field, or undefined when the event did not name itself (the spec's "message"). */
  event: string | undefined;
  /** The `data:` lines joined with "\n". */
  data: string;
  /** The `id:` field carried by this event, or undefined when it had none. */
  id: string | undefined;
}

export interface SseDecoderOptions {
  /** Largest event accepted, counted as the UTF-8 bytes of its lines without their line endings. */
  maxEventBytes: number;
  onEvent(event: SseEvent): void;
  /** A line opening an event with `{` is its data (Google's bare mid-stream error object): see above. */
  bareJsonEvents?: boolean;
}

export interface SseDecoder {
  push(chunk: Uint8Array): void;
  /** Ends the stream: processes an unterminated last line and dispatches a pending event. */
  end(): void;
}

export class SseEventTooLargeError extends Error {
  override readonly name = 'SseEventTooLargeError';
  constructor(readonly maxEventBytes: number) {
    super(`SSE event exceeds ${maxEventBytes} bytes`);
  }
}

const lineFeed = 0x0a;
const carriageReturn = 0x0d;
const colon = 0x3a;
const space = 0x20;
const openBrace = 0x7b;
const noMatch = -1;

const emptyBuffer = Buffer.alloc(0);
/** The first buffer for a cut line: most lines fit. */
const initialPartialBytes = 4096;

export function createSseDecoder(options: SseDecoderOptions): SseDecoder {
  const { maxEventBytes, onEvent } = options;
  const bareJsonEvents = options.bareJsonEvents === true;

  // The event being assembled.
  let data: string | undefined;
  let eventName: string | undefined;
  let id: string | undefined;
  let eventBytes = 0;
  // The event was opened by a bare JSON line (bareJsonEvents): its later lines are its data too.
  let bareEvent = false;

  // A line cut by a chunk boundary, waiting for its line ending. Allocated when first needed: a relay
  // creates a decoder for every stream, and most streams never reach it (scan-data-frames.ts) or never
  // cut a line (a zero-filled 4 KB per stream was ~1 % of the streaming profile, session 6).
  let partialLine = emptyBuffer;
  let partialLength = 0;
  // The previous chunk ended with CR: an LF opening the next chunk belongs to that CRLF.
  let skipLeadingLineFeed = false;
  // True until the first line has been seen, so a UTF-8 byte order mark can be dropped.
  let atStreamStart = true;

  let failed = false;
  let failure: unknown;
  let ended = false;

  function dispatch(): void {
    const event: SseEvent = { event: eventName, data: data ?? '', id };
    const hasData = data !== undefined;
    data = undefined;
    eventName = undefined;
    id = undefined;
    eventBytes = 0;
    bareEvent = false;
    if (hasData) onEvent(event);
  }

  function ensureRoom(lineBytes: number): void {
    if (eventBytes + lineBytes > maxEventBytes) throw new SseEventTooLargeError(maxEventBytes);
  }

  /** Interprets one complete line held in bytes[start, end). */
  function processLine(bytes: Buffer, start: number, end: number): void {
    if (atStreamStart) {
      atStreamStart = false;
      if (end - start >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf) start += 3;
    }
    if (start === end) {
      dispatch();
      return;
    }
    ensureRoom(end - start);
    eventBytes += end - start;
    if (bytes[start] === colon) return; // comment, e.g. ": PING" or ": OPENROUTER PROCESSING"

    let colonAt = start;
    while (colonAt < end && bytes[colonAt] !== colon) colonAt++;
    let valueStart = colonAt < end ? colonAt + 1 : end;
    if (valueStart < end && bytes[valueStart] === space) valueStart++;
    const nameLength = colonAt - start;

    if (nameLength === 4 && bytes[start] === 0x64 && bytes[start + 1] === 0x61 && bytes[start + 2] === 0x74 && bytes[start + 3] === 0x61) {
      const value = decodeText(bytes, valueStart, end);
      data = data === undefined ? value : `${data}\n${value}`;
    } else if (nameLength === 5 && bytes[start] === 0x65 && bytes[start + 1] === 0x76 && bytes[start + 2] === 0x65 && bytes[start + 3] === 0x6e && bytes[start + 4] === 0x74) {
      eventName = decodeText(bytes, valueStart, end);
    } else if (nameLength === 2 && bytes[start] === 0x69 && bytes[start + 1] === 0x64) {
      const value = decodeText(bytes, valueStart, end);
      if (!value.includes('\0')) id = value; // the spec ignores ids containing NULL
    } else if (bareJsonEvents) readBareJsonLine(bytes, start, end);
    // "retry" and unknown fields are ignored.
  }

  /**
   * A line of no known field, on a stream that takes bare JSON: the data of an event it opens with `{`
   * (a JSON line's first colon is inside it, so it lands here), or the next line of such an event (a
   * pretty-printed object: every line of it is quoted, a bracket or blank-led, never a field name).
   */
  function readBareJsonLine(bytes: Buffer, start: number, end: number): void {
    if (bareEvent) data = `${data}\n${decodeText(bytes, start, end)}`;
    else if (bytes[start] === openBrace && data === undefined && eventName === undefined && id === undefined) {
      bareEvent = true;
      data = decodeText(bytes, start, end);
    }
  }

  function decodeText(bytes: Buffer, start: number, end: number): string {
    // Buffer#toString keeps a leading U+FEFF (only the stream's own BOM is dropped, above) and
    // replaces invalid sequences with U+FFFD, as the spec's UTF-8 decode does.
    return start === end ? '' : bytes.toString('utf8', start, end);
  }

  function appendPartial(chunk: Buffer, start: number, end: number): void {
    const length = end - start;
    if (length === 0) return;
    ensureRoom(partialLength + length);
    const needed = partialLength + length;
    if (needed > partialLine.length) {
      const grown = Buffer.alloc(Math.min(Math.max(needed, partialLine.length * 2, initialPartialBytes), maxEventBytes));
      partialLine.copy(grown, 0, 0, partialLength);
      partialLine = grown;
    }
    chunk.copy(partialLine, partialLength, start, end);
    partialLength = needed;
  }

  /** Completes a line whose start was buffered, with chunk[0, end) as its tail. */
  function finishPartialLine(chunk: Buffer, end: number): void {
    if (partialLength === 0) {
      processLine(chunk, 0, end);
      return;
    }
    appendPartial(chunk, 0, end);
    const length = partialLength;
    partialLength = 0;
    processLine(partialLine, 0, length);
  }

  function pushChunk(bytes: Uint8Array): void {
    // A Buffer view (no copy): Buffer#indexOf is memchr, several times faster than
    // TypedArray#indexOf, and Buffer#toString decodes a slice without a subarray object.
    const chunk = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let position = 0;
    if (skipLeadingLineFeed && chunk.length > 0) {
      skipLeadingLineFeed = false;
      if (chunk[0] === lineFeed) position = 1;
    }
    // Next LF and CR at or after `position`; each is searched again only once passed, so a chunk
    // is scanned a bounded number of times whatever its line count.
    let nextLineFeed = chunk.indexOf(lineFeed, position);
    let nextCarriageReturn = chunk.indexOf(carriageReturn, position);

    while (position < chunk.length) {
      if (nextLineFeed !== noMatch && nextLineFeed < position) nextLineFeed = chunk.indexOf(lineFeed, position);
      if (nextCarriageReturn !== noMatch && nextCarriageReturn < position) nextCarriageReturn = chunk.indexOf(carriageReturn, position);

      let lineEnd: number;
      if (nextCarriageReturn === noMatch) lineEnd = nextLineFeed;
      else if (nextLineFeed === noMatch) lineEnd = nextCarriageReturn;
      else lineEnd = Math.min(nextLineFeed, nextCarriageReturn);

      if (lineEnd === noMatch) {
        appendPartial(chunk, position, chunk.length);
        return;
      }

      let nextPosition = lineEnd + 1;
      if (chunk[lineEnd] === carriageReturn) {
        if (nextPosition === chunk.length) skipLeadingLineFeed = true;
        else if (chunk[nextPosition] === lineFeed) nextPosition++;
      }

      if (position === 0) finishPartialLine(chunk, lineEnd);
      else processLine(chunk, position, lineEnd);
      position = nextPosition;
    }
  }

  function guard(): void {
    if (failed) throw failure;
    if (ended) throw new Error('SSE decoder used after end()');
  }

  return {
    push(chunk) {
      guard();
      try {
        pushChunk(chunk);
      } catch (error) {
        failed = true;
        failure = error;
        throw error;
      }
    },
    end() {
      guard();
      ended = true;
      try {
        if (partialLength > 0) {
          const length = partialLength;
          partialLength = 0;
          processLine(partialLine, 0, length);
        }
        dispatch();
      } catch (error) {
        failed = true;
        failure = error;
        throw error;
      }
    },
  };
}
