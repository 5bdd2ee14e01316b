import { describe, expect, it } from 'vitest';
import { createSseDecoder, SseEventTooLargeError } from './decode-sse.js';
import { createDataFrameScanner } from './scan-data-frames.js';

/**
 * The scanner with the full decoder behind it, as a relay uses them: the payloads of the events, in
 * order (from either path), the bytes forwarded untouched, and how many frames took the fast path.
 */
function relayThrough(chunks: Buffer[], options: { maxEventBytes?: number; drop?: (payload: string) => boolean } = {}) {
  const maxEventBytes = options.maxEventBytes ?? 1 << 20;
  const payloads: string[] = [];
  const forwarded: Buffer[] = [];
  let scannedFrames = 0;
  const decoder = createSseDecoder({ maxEventBytes, onEvent: (event) => payloads.push(event.data) });
  const scanner = createDataFrameScanner(maxEventBytes, {
    onFrame(bytes, start, end) {
      scannedFrames += 1;
      const payload = bytes.toString('utf8', start, end);
      payloads.push(payload);
      return options.drop?.(payload) !== true;
    },
    onForward(bytes, start, end) {
      forwarded.push(Buffer.from(bytes.subarray(start, end)));
    },
  });
  let scanning = true;
  for (const chunk of chunks) {
    if (!scanning) {
      decoder.push(chunk);
      continue;
    }
    const rest = scanner.push(chunk);
    if (rest !== undefined) {
      scanning = false;
      decoder.push(rest);
    }
  }
  const rest = scanning ? scanner.rest() : undefined;
  if (rest !== undefined) decoder.push(rest);
  decoder.end();
  return { payloads, forwarded: Buffer.concat(forwarded).toString('utf8'), scannedFrames };
}

/** The payloads the full decoder alone gives for the same bytes. */
function decodedPayloads(text: string): string[] {
  const payloads: string[] = [];
  const decoder = createSseDecoder({ maxEventBytes: 1 << 20, onEvent: (event) => payloads.push(event.data) });
  decoder.push(Buffer.from(text));
  decoder.end();
  return payloads;
}

/** Every way to cut `text` in two, and a few in many pieces. */
function chunkings(text: string): Buffer[][] {
  const bytes = Buffer.from(text);
  const ways: Buffer[][] = [[bytes]];
  for (let cut = 1; cut < bytes.length; cut++) ways.push([bytes.subarray(0, cut), bytes.subarray(cut)]);
  for (let size = 1; size <= 7; size += 3) {
    const pieces: Buffer[] = [];
    for (let start = 0; start < bytes.length; start += size) pieces.push(bytes.subarray(start, start + size));
    ways.push(pieces);
  }
  return ways;
}

const frame = (payload: string) => `data: ${payload}\n\n`;

describe('createDataFrameScanner', () => {
  it('hands plain frames over as byte ranges and forwards them untouched, however the reads are cut', () => {
    const text = frame('{"a":"héllo"}') + frame('{"b":2}') + frame('[DONE]');
    for (const chunks of chunkings(text)) {
      const result = relayThrough(chunks);
      expect(result.payloads).toEqual(['{"a":"héllo"}', '{"b":2}', '[DONE]']);
      expect(result.forwarded).toBe(text);
      expect(result.scannedFrames).toBe(3);
    }
  });

  it('forwards one contiguous range per read when no frame is dropped', () => {
    const forwardedRanges: [number, number][] = [];
    const scanner = createDataFrameScanner(1024, { onFrame: () => true, onForward: (_bytes, start, end) => forwardedRanges.push([start, end]) });
    const text = frame('1') + frame('2') + frame('3');
    expect(scanner.push(Buffer.from(text))).toBeUndefined();
    expect(forwardedRanges).toEqual([[0, text.length]]);
  });

  it('leaves out the frames the handler drops, forwarding the bytes around them', () => {
    const text = frame('keep 1') + frame('drop') + frame('keep 2') + frame('drop') + frame('[DONE]');
    for (const chunks of chunkings(text)) {
      const result = relayThrough(chunks, { drop: (payload) => payload === 'drop' });
      expect(result.forwarded).toBe(frame('keep 1') + frame('keep 2') + frame('[DONE]'));
    }
  });

  it.each([
    ['CRLF line endings', 'data: 1\r\n\r\ndata: 2\r\n\r\n'],
    ['a comment line', frame('1') + ': keep-alive\n\n' + frame('2')],
    ['an event name', frame('1') + 'event: delta\ndata: 2\n\n' + frame('3')],
    ['data without its space', frame('1') + 'data:2\n\n' + frame('3')],
    ['two data lines in one event', frame('1') + 'data: 2a\ndata: 2b\n\n' + frame('3')],
    ['a byte order mark', '\uFEFF' + frame('1') + frame('2')],
    ['a blank line before the first frame', '\n' + frame('1')],
    ['a last event without its blank line', frame('1') + 'data: 2\n'],
    ['a last event without any line ending', frame('1') + 'data: 2'],
  ])('hands the rest of the stream to the full decoder at %s, delivering what the decoder alone would', (_name, text) => {
    for (const chunks of chunkings(text)) {
      const result = relayThrough(chunks);
      expect(result.payloads).toEqual(decodedPayloads(text));
    }
  });

  it('forwards only the plain frames before the first other one', () => {
    const result = relayThrough([Buffer.from(frame('1') + frame('2') + ': ping\n\n' + frame('3'))]);
    expect(result.forwarded).toBe(frame('1') + frame('2'));
    expect(result.scannedFrames).toBe(2);
    expect(result.payloads).toEqual(['1', '2', '3']);
  });

  it('enforces the size limit on the data line, complete or still arriving', () => {
    const limit = 16;
    expect(relayThrough([Buffer.from(frame('x'.repeat(limit - 6)))], { maxEventBytes: limit }).payloads).toEqual(['x'.repeat(limit - 6)]);
    expect(() => relayThrough([Buffer.from(frame('x'.repeat(limit - 5)))], { maxEventBytes: limit })).toThrow(SseEventTooLargeError);
    const scanner = createDataFrameScanner(limit, { onFrame: () => true, onForward: () => undefined });
    expect(scanner.push(Buffer.from('data: 0123456789'))).toBeUndefined();
    expect(() => scanner.push(Buffer.from('a'))).toThrow(SseEventTooLargeError);
  });

  it('assembles a large frame that arrives in many small reads', () => {
    const payload = `{"b64":"${'A'.repeat(64 * 1024)}"}`;
    const bytes = Buffer.from(frame(payload) + frame('[DONE]'));
    const reads: Buffer[] = [];
    for (let start = 0; start < bytes.length; start += 1000) reads.push(bytes.subarray(start, start + 1000));
    const result = relayThrough(reads);
    expect(result.payloads).toEqual([payload, '[DONE]']);
    expect(result.forwarded).toBe(bytes.toString());
  });

  it('keeps an unfinished frame for the next read, and gives it back at the end of the stream', () => {
    const scanner = createDataFrameScanner(1024, { onFrame: () => true, onForward: () => undefined });
    scanner.push(Buffer.from(frame('1') + 'data: 2\n'));
    expect(scanner.rest()?.toString()).toBe('data: 2\n');
    scanner.push(Buffer.from('\n'));
    expect(scanner.rest()).toBeUndefined();
  });
});
