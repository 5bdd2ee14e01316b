import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { createSseDecoder, SseEventTooLargeError, type SseEvent } from './decode-sse.js';

const encoder = new TextEncoder();
const bytesOf = (text: string): Uint8Array => encoder.encode(text);
const largeLimit = 1024 * 1024;

function decodeChunks(chunks: Uint8Array[], maxEventBytes = largeLimit): SseEvent[] {
  const events: SseEvent[] = [];
  const decoder = createSseDecoder({ maxEventBytes, onEvent: (event) => events.push(event) });
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  return events;
}

function splitEveryByte(bytes: Uint8Array): Uint8Array[] {
  return Array.from(bytes, (_, index) => bytes.subarray(index, index + 1));
}

function splitAt(bytes: Uint8Array, ...offsets: number[]): Uint8Array[] {
  const bounds = [0, ...offsets, bytes.length];
  return bounds.slice(1).map((end, index) => bytes.subarray(bounds[index], end));
}

/** Deterministic pseudo-random chunk sizes between 1 and 64 bytes. */
function splitPseudoRandomly(bytes: Uint8Array, seed: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let state = seed;
  for (let start = 0; start < bytes.length; ) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const size = 1 + (state % 64);
    chunks.push(bytes.subarray(start, start + size));
    start += size;
  }
  return chunks;
}

const message = (data: string, event?: string, id?: string): SseEvent => ({ event, data, id });

describe('createSseDecoder', () => {
  it('decodes data, event and id fields', () => {
    const events = decodeChunks([bytesOf('event: message_start\nid: 7\ndata: {"a":1}\n\ndata:no-space\n\n')]);
    expect(events).toEqual([message('{"a":1}', 'message_start', '7'), message('no-space')]);
  });

  it('treats LF, CRLF and CR line endings alike', () => {
    const body = 'event: ping\ndata: one\ndata: two\n\ndata: three\n\n';
    const expected = [message('one\ntwo', 'ping'), message('three')];
    expect(decodeChunks([bytesOf(body)])).toEqual(expected);
    expect(decodeChunks([bytesOf(body.replaceAll('\n', '\r\n'))])).toEqual(expected);
    expect(decodeChunks([bytesOf(body.replaceAll('\n', '\r'))])).toEqual(expected);
  });

  it('does not see an extra blank line when CR ends one chunk and LF starts the next', () => {
    // Were the LF read as a blank line, "a" and "b" would come out as two events.
    expect(decodeChunks([bytesOf('data: a\r'), bytesOf('\ndata: b\r\n\r\n')])).toEqual([message('a\nb')]);
    expect(decodeChunks([bytesOf('data: a\r\n\r'), bytesOf('\ndata: b\r\n\r\n')])).toEqual([message('a'), message('b')]);
  });

  it('keeps the CR/LF pairing across an empty chunk between CR and LF', () => {
    expect(decodeChunks([bytesOf('data: a\r'), new Uint8Array(0), bytesOf('\ndata: b\n\n')])).toEqual([message('a\nb')]);
  });

  it('yields the same events for CRLF and CR streams split at every offset', () => {
    for (const ending of ['\r\n', '\r']) {
      const body = bytesOf(['event: e', 'id: 1', 'data: x', 'data: y', '', ': comment', 'data: z', '', ''].join(ending));
      const expected = [message('x\ny', 'e', '1'), message('z')];
      for (let offset = 0; offset <= body.length; offset++) {
        expect(decodeChunks(splitAt(body, offset)), `split at ${offset}`).toEqual(expected);
      }
      expect(decodeChunks(splitEveryByte(body))).toEqual(expected);
    }
  });

  it.each(['é', '中', '😀'])('reassembles %s split at every byte boundary', (character) => {
    const body = bytesOf(`data: ${character}${character}\n\n`);
    for (let first = 1; first < body.length; first++) {
      for (let second = first; second < body.length; second++) {
        expect(decodeChunks(splitAt(body, first, second))).toEqual([message(character + character)]);
      }
    }
    expect(decodeChunks(splitEveryByte(body))).toEqual([message(character + character)]);
  });

  it('ignores comment lines, between events and inside one', () => {
    const body = ': PING\n\n: OPENROUTER PROCESSING\n\ndata: a\n: inside\ndata: b\n\n:\n\n';
    expect(decodeChunks([bytesOf(body)])).toEqual([message('a\nb')]);
  });

  it('does not dispatch an event that has no data line, as the spec says', () => {
    expect(decodeChunks([bytesOf('event: lonely\nid: 3\n\ndata: next\n\n')])).toEqual([message('next')]);
  });

  it('dispatches an empty data line as empty data, and a field without colon as an empty value', () => {
    expect(decodeChunks([bytesOf('data:\n\ndata\n\ndata\ndata\n\n')])).toEqual([message(''), message(''), message('\n')]);
  });

  it('reports the id of the event that carried it only, and ignores ids containing NULL', () => {
    expect(decodeChunks([bytesOf('id: 1\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\n')])).toEqual([message('a', undefined, '1'), message('b'), message('c')]);
  });

  it('ignores retry and unknown fields, and keeps only one leading space of a value', () => {
    expect(decodeChunks([bytesOf('retry: 1000\nfoo: bar\ndata:  two spaces\n\n')])).toEqual([message(' two spaces')]);
  });

  it('drops a UTF-8 byte order mark at the start of the stream, even split, but keeps U+FEFF inside data', () => {
    const body = bytesOf('\uFEFFdata: a\n\ndata: \uFEFFb\n\n');
    const expected = [message('a'), message('\uFEFFb')];
    expect(decodeChunks([body])).toEqual(expected);
    expect(decodeChunks(splitEveryByte(body))).toEqual(expected);
  });

  it('dispatches a final event that lacks its closing blank line on end()', () => {
    expect(decodeChunks([bytesOf('data: a\n\ndata: last')])).toEqual([message('a'), message('last')]);
    expect(decodeChunks([bytesOf('data: a\n\ndata: last\n')])).toEqual([message('a'), message('last')]);
    expect(decodeChunks([bytesOf('data: a\n\ndata: last\r')])).toEqual([message('a'), message('last')]);
    expect(decodeChunks([bytesOf('data: a\n\n')])).toEqual([message('a')]);
    expect(decodeChunks([])).toEqual([]);
  });

  it('accepts an event of exactly maxEventBytes', () => {
    // "data: " (6 bytes) + 10 bytes of value = 16 bytes of line.
    expect(decodeChunks([bytesOf(`data: ${'x'.repeat(10)}\n\n`)], 16)).toEqual([message('x'.repeat(10))]);
  });

  it('throws SseEventTooLargeError for an event over maxEventBytes, counting all its lines in UTF-8 bytes', () => {
    expect(() => decodeChunks([bytesOf(`data: ${'x'.repeat(11)}\n\n`)], 16)).toThrow(SseEventTooLargeError);
    expect(() => decodeChunks([bytesOf('data: 12345\ndata: 12345\n\n')], 16)).toThrow(SseEventTooLargeError);
    // 5 characters, 15 bytes: the limit is in bytes, not characters.
    expect(() => decodeChunks([bytesOf(`data: ${'中'.repeat(5)}\n\n`)], 16)).toThrow(SseEventTooLargeError);
    // The limit is per event: many small events are fine.
    expect(decodeChunks([bytesOf('data: 1234567890\n\n'.repeat(100))], 16)).toHaveLength(100);
  });

  it('throws while an endless line is still arriving, without buffering past the limit', () => {
    const events: SseEvent[] = [];
    const decoder = createSseDecoder({ maxEventBytes: 1000, onEvent: (event) => events.push(event) });
    const piece = bytesOf('x'.repeat(100));
    decoder.push(bytesOf('data: '));
    let pushes = 0;
    const pushForever = (): void => {
      for (;;) {
        pushes++;
        decoder.push(piece);
      }
    };
    expect(pushForever).toThrow(SseEventTooLargeError);
    expect(pushes).toBe(10); // 6 + 9 × 100 = 906 bytes fit; the tenth piece would make 1006
    expect(events).toEqual([]);
  });

  it('stays failed after an error: every later push or end throws the same error', () => {
    const decoder = createSseDecoder({ maxEventBytes: 8, onEvent: () => undefined });
    let thrown: unknown;
    try {
      decoder.push(bytesOf('data: far too long\n\n'));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SseEventTooLargeError);
    expect(() => decoder.push(bytesOf('data: a\n\n'))).toThrow(thrown as Error);
    expect(() => decoder.end()).toThrow(thrown as Error);
  });

  it('aborts push with the error of an onEvent that throws, delivers nothing after it, and stays failed', () => {
    const stop = new Error('consumer went away');
    const seen: string[] = [];
    const decoder = createSseDecoder({
      maxEventBytes: largeLimit,
      onEvent(event) {
        seen.push(event.data);
        if (event.data === 'b') throw stop;
      },
    });
    expect(() => decoder.push(bytesOf('data: a\n\ndata: b\n\ndata: c\n\n'))).toThrow(stop);
    expect(seen).toEqual(['a', 'b']);
    expect(() => decoder.push(bytesOf('data: d\n\n'))).toThrow(stop);
    expect(() => decoder.end()).toThrow(stop);
    expect(seen).toEqual(['a', 'b']);
  });

  it('refuses push after end', () => {
    const decoder = createSseDecoder({ maxEventBytes: largeLimit, onEvent: () => undefined });
    decoder.end();
    expect(() => decoder.push(bytesOf('data: a\n\n'))).toThrow(/after end/);
  });

  it('ignores a bare JSON line by default, as a line of unknown field', () => {
    expect(decodeChunks([bytesOf('data: {"a":1}\r\n\r\n{"error":{"code":503}}\r\n\r\n')])).toEqual([{ event: undefined, data: '{"a":1}', id: undefined }]);
  });

  it('with bareJsonEvents, reads a JSON object that opens an event as its data (Google\'s mid-stream error), whole or pretty-printed, split anywhere', () => {
    const decode = (text: string) => {
      const bytes = bytesOf(text);
      const runs = [[bytes], splitEveryByte(bytes), splitPseudoRandomly(bytes, 7)].map((chunks) => {
        const events: SseEvent[] = [];
        const decoder = createSseDecoder({ maxEventBytes: largeLimit, bareJsonEvents: true, onEvent: (event) => events.push(event) });
        for (const chunk of chunks) decoder.push(chunk);
        decoder.end();
        return events;
      });
      expect(runs[1]).toEqual(runs[0]);
      expect(runs[2]).toEqual(runs[0]);
      return runs[0]!.map((event) => event.data);
    };
    const error = '{"error":{"code":503,"message":"Overloaded: try again","status":"UNAVAILABLE"}}';
    expect(decode(`data: {"a":1}\r\n\r\n${error}\r\n\r\n`)).toEqual(['{"a":1}', error]);
    // Unterminated at the end of the body.
    expect(decode(`data: {"a":1}\r\n\r\n${error}`)).toEqual(['{"a":1}', error]);
    const pretty = JSON.stringify(JSON.parse(error), null, 2);
    expect(decode(`data: {"a":1}\n\n${pretty}\n\ndata: {"b":2}\n\n`)).toEqual(['{"a":1}', pretty, '{"b":2}']);
    // Not at the start of an event: a line of unknown field, as without the option.
    expect(decode(`data: {"a":1}\n${error}\n\n`)).toEqual(['{"a":1}']);
  });

  it('agrees with eventsource-parser on tricky input', () => {
    // No BOM here: eventsource-parser leaves a BOM in place (ours drops it, tested above).
    const body = 'id: 1\r\nevent: a\r\ndata: x\r\n\r\n: c\rdata:y\rdata\r\rretry: 5\nid: 2\ndata:  z\n\ndata: 中😀\n\n';
    const reference: SseEvent[] = [];
    const parser = createParser({ onEvent: (event) => reference.push({ event: event.event, data: event.data, id: event.id }) });
    parser.feed(body);
    expect(decodeChunks(splitEveryByte(bytesOf(body)))).toEqual(reference);
    expect(reference).toHaveLength(4);
  });
});

describe('createSseDecoder on recorded OpenAI-compatible streams', () => {
  const folder = join(import.meta.dirname, '../../../shared/reference/recorded/openai-chat');
  const files = readdirSync(folder).filter((name) => name.endsWith('.chunks.txt'));

  it('finds the recorded streams', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  describe.each(files)('%s', (file) => {
    // The file holds one data payload per line; frame it as the vendor does, ending with [DONE].
    const payloads = readFileSync(join(folder, file), 'utf8').split('\n').filter((line) => line.length > 0);
    const expected = [...payloads, '[DONE]'].map((data) => message(data));
    const body = bytesOf(expected.map((event) => `data: ${event.data}\n\n`).join(''));

    it('yields one event per recorded payload, in one piece and byte by byte', () => {
      expect(decodeChunks([body])).toEqual(expected);
      expect(decodeChunks(splitEveryByte(body))).toEqual(expected);
    });

    it('yields the same events in pseudo-random chunks and with CRLF endings', () => {
      expect(decodeChunks(splitPseudoRandomly(body, 42))).toEqual(expected);
      const crlfBody = bytesOf(expected.map((event) => `data: ${event.data}\r\n\r\n`).join(''));
      expect(decodeChunks(splitPseudoRandomly(crlfBody, 7))).toEqual(expected);
    });

    it('yields the same events when the body ends without the last blank line', () => {
      expect(decodeChunks([body.subarray(0, body.length - 2)])).toEqual(expected);
    });
  });
});
