import { describe, expect, it } from 'vitest';
import { HeldEvents } from './held-events.js';

describe('HeldEvents', () => {
  it('gives back every held event once — texts, and ranges of one or several reads — and then holds nothing', () => {
    const held = new HeldEvents();
    const first = Buffer.from('data: {"a":1}\n\ndata: {"b":2}\n\n');
    const second = Buffer.from('data: {"c":"é"}\n\n');
    held.addRange(first, 6, 13);
    held.addRange(first, 21, 28);
    held.addText('{"t":true}');
    held.addRange(second, 6, 16);
    expect(held.size).toBe(7 + 7 + 10 + 10);
    const seen: string[] = [];
    held.drain((data) => seen.push(data));
    expect(seen.sort()).toEqual(['{"a":1}', '{"b":2}', '{"c":"é"}', '{"t":true}']);
    expect(held.size).toBe(0);
    const again: string[] = [];
    held.drain((data) => again.push(data));
    expect(again).toEqual([]);
  });

  it('keeps ranges of a read seen before, after another read was held', () => {
    const held = new HeldEvents();
    const one = Buffer.from('xx{"one":1}');
    const two = Buffer.from('{"two":2}');
    held.addRange(one, 2, 11);
    held.addRange(two, 0, 9);
    held.addRange(one, 2, 11);
    const seen: string[] = [];
    held.drain((data) => seen.push(data));
    expect(seen).toEqual(['{"one":1}', '{"two":2}', '{"one":1}']);
  });

  it('holds copies: the reads they came from can change or be collected', () => {
    const held = new HeldEvents();
    const read = Buffer.from('data: {"text":"kept é"}\n\n');
    held.addRange(read, 6, read.length - 2);
    read.fill(0x78);
    const seen: string[] = [];
    held.drain((data) => seen.push(data));
    expect(seen).toEqual(['{"text":"kept é"}']);
  });

  it('gives back many events in order, multi-byte characters intact, then starts over empty', () => {
    const held = new HeldEvents();
    const events = Array.from({ length: 1000 }, (_, index) => `{"choices":[{"delta":{"content":"token ${index} ${'é漢🙂'.repeat(index % 5)}"}}]}`);
    for (const event of events) {
      const read = Buffer.from(`data: ${event}\n\n`);
      held.addRange(read, 6, read.length - 2);
    }
    expect(held.size).toBe(events.reduce((sum, event) => sum + Buffer.byteLength(event), 0));
    const seen: string[] = [];
    held.drain((data) => seen.push(data));
    expect(seen).toEqual(events);
    held.addRange(Buffer.from('{"after":true}'), 0, 14);
    const after: string[] = [];
    held.drain((data) => after.push(data));
    expect(after).toEqual(['{"after":true}']);
  });
});

describe('HeldEvents.addRange', () => {
  it('returns the copy it holds (the event as a one-byte string)', () => {
    const held = new HeldEvents();
    const read = Buffer.from('data: {"b":2}\n\n');
    expect(held.addRange(read, 6, 13)).toBe('{"b":2}');
  });
});
