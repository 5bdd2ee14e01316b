/**
 * The fast path of an SSE relay: splits bytes into the one frame shape OpenAI-style servers send —
 * `data: <payload>\n\n` — as byte ranges of the read, without decoding them to text. A relay that only
 * needs to look at a few frames forwards the rest as the very bytes it received.
 *
 * Anything else ends the fast path: CR line endings, `event:`/`id:`/comment lines, `data:` without its
 * space, several `data:` lines in one event, a byte order mark. `push` then returns the bytes from the
 * first such frame on (the frames before it were delivered), and the caller hands them and the rest of
 * the stream to the full decoder (`createSseDecoder`), which starts at an event boundary and so in the
 * same state it would have reached itself. For a stream of simple frames the two paths deliver the same
 * events; the size limit is the full decoder's (the bytes of the `data:` line, without its line ending).
 */
import { SseEventTooLargeError } from './decode-sse.js';

export interface DataFrameHandler {
  /**
   * One complete frame: its payload is bytes[dataStart, dataEnd), the frame itself (with `data: ` and
   * the blank line) bytes[dataStart - 6, dataEnd + 2). Returns whether the frame is forwarded, or the
   * payload to send in its place (`onReplace`, after the frames forwarded before it).
   */
  onFrame(bytes: Buffer, dataStart: number, dataEnd: number): boolean | string;
  /** Contiguous forwarded frames, as one range of the read (no copy). */
  onForward(bytes: Buffer, start: number, end: number): void;
  /** The payload a frame is replaced by, written in its place (a handler that never replaces needs none). */
  onReplace?(data: string): void;
}

export interface DataFrameScanner {
  /** Scans one read; returns undefined, or the bytes the full decoder must take from here on. */
  push(chunk: Buffer): Buffer | undefined;
  /** The bytes after the last complete frame (an unterminated frame at the end of the stream), if any. */
  rest(): Buffer | undefined;
}

const lineFeed = 0x0a;
const carriageReturn = 0x0d;
const dataPrefix = Buffer.from('data: ');
const prefixLength = dataPrefix.length;

export function createDataFrameScanner(maxEventBytes: number, handler: DataFrameHandler): DataFrameScanner {
  // An unfinished frame from the previous reads, in pieces: while no line feed has arrived, a read is only
  // appended (a large frame in many small reads is copied once, not once per read).
  let carried: Buffer[] = [];
  let carriedLength = 0;
  let carriedHasLineFeed = false;

  function push(chunk: Buffer): Buffer | undefined {
    if (carried.length > 0 && !carriedHasLineFeed && chunk.indexOf(lineFeed) === -1) {
      checkLineSize(carriedLength + chunk.length);
      carry(chunk);
      return undefined;
    }
    const bytes = carried.length === 0 ? chunk : Buffer.concat([...carried, chunk], carriedLength + chunk.length);
    carried = [];
    carriedLength = 0;
    const length = bytes.length;
    // The first CR at or after `position`; searched again only once passed.
    let nextCarriageReturn = bytes.indexOf(carriageReturn);
    let position = 0;
    let runStart = 0;
    while (position < length) {
      const lineEnd = bytes.indexOf(lineFeed, position);
      if (lineEnd === -1 || lineEnd + 1 === length) {
        // The frame is not complete yet (or its blank line is still to come).
        checkLineSize(lineEnd === -1 ? length - position : lineEnd - position);
        break;
      }
      if (nextCarriageReturn !== -1 && nextCarriageReturn < position) nextCarriageReturn = bytes.indexOf(carriageReturn, position);
      const simple = bytes[lineEnd + 1] === lineFeed && (nextCarriageReturn === -1 || nextCarriageReturn > lineEnd) && startsWithDataPrefix(bytes, position, lineEnd);
      if (!simple) {
        if (runStart < position) handler.onForward(bytes, runStart, position);
        return bytes.subarray(position);
      }
      checkLineSize(lineEnd - position);
      const verdict = handler.onFrame(bytes, position + prefixLength, lineEnd);
      if (verdict !== true) {
        if (runStart < position) handler.onForward(bytes, runStart, position);
        if (verdict !== false) handler.onReplace?.(verdict);
        runStart = lineEnd + 2;
      }
      position = lineEnd + 2;
    }
    if (runStart < position) handler.onForward(bytes, runStart, position);
    if (position < length) carry(bytes.subarray(position));
    return undefined;
  }

  function carry(piece: Buffer): void {
    if (carried.length === 0) carriedHasLineFeed = false;
    carried.push(piece);
    carriedLength += piece.length;
    if (!carriedHasLineFeed && piece.indexOf(lineFeed) !== -1) carriedHasLineFeed = true;
  }

  function checkLineSize(lineBytes: number): void {
    if (lineBytes > maxEventBytes) throw new SseEventTooLargeError(maxEventBytes);
  }

  return {
    push,
    rest: () => (carried.length === 0 ? undefined : carried.length === 1 ? carried[0] : Buffer.concat(carried, carriedLength)),
  };
}

function startsWithDataPrefix(bytes: Buffer, start: number, lineEnd: number): boolean {
  if (lineEnd - start < prefixLength) return false;
  for (let index = 0; index < prefixLength; index++) if (bytes[start + index] !== dataPrefix[index]) return false;
  return true;
}
