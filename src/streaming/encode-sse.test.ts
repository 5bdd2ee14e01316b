import { describe, expect, it } from 'vitest';
import { createSseDecoder, type SseEvent } from './decode-sse.js';
import { encodeSseDone, encodeSseEvent } from './encode-sse.js';

function decodeText(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const decoder = createSseDecoder({ maxEventBytes: 1 << 20, onEvent: (event) => events.push(event) });
  decoder.push(new TextEncoder().encode(text));
  decoder.end();
  return events;
}

describe('encodeSseEvent', () => {
  it('writes one data line and the closing blank line', () => {
    expect(encodeSseEvent('{"a":1}')).toBe('data: {"a":1}\n\n');
  });

  it('writes the event name first when given', () => {
    expect(encodeSseEvent('{"type":"ping"}', 'ping')).toBe('event: ping\ndata: {"type":"ping"}\n\n');
  });

  it('splits multi-line data into several data lines, whatever the line ending', () => {
    expect(encodeSseEvent('a\nb\r\nc\rd')).toBe('data: a\ndata: b\ndata: c\ndata: d\n\n');
    expect(encodeSseEvent('a\n')).toBe('data: a\ndata: \n\n');
    expect(encodeSseEvent('')).toBe('data: \n\n');
  });

  it('round-trips through the decoder', () => {
    const cases: Array<[string, string | undefined]> = [['x', undefined], ['line1\nline2', 'delta'], ['', 'empty'], ['\n\n', undefined], ['中😀', 'é']];
    for (const [data, event] of cases) {
      expect(decodeText(encodeSseEvent(data, event))).toEqual([{ event, data, id: undefined }]);
    }
  });

  it('rejects an event name holding a line break', () => {
    expect(() => encodeSseEvent('x', 'a\nb')).toThrow(TypeError);
  });
});

describe('encodeSseDone', () => {
  it('writes the OpenAI end-of-stream sentinel', () => {
    expect(encodeSseDone()).toBe('data: [DONE]\n\n');
  });
});
