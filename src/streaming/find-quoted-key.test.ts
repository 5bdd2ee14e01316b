import { describe, expect, it } from 'vitest';
import { indexOfQuoted, lastIndexOfQuoted } from './find-quoted-key.js';

const tail = Buffer.from('usage"');

describe('indexOfQuoted', () => {
  it('finds the quoted key where Buffer#indexOf of the whole needle does, from any offset', () => {
    const bytes = Buffer.from('{"a":"x","nousage":1,"usage":{"t":1},"b":"usage","usage":null}');
    const needle = Buffer.from('"usage"');
    for (let from = 0; from <= bytes.length; from += 1) expect(indexOfQuoted(bytes, tail, from)).toBe(bytes.indexOf(needle, from));
  });

  it('skips a tail with no quote before it and answers -1 when there is none', () => {
    expect(indexOfQuoted(Buffer.from('{"nousage":1}'), tail, 0)).toBe(-1);
    expect(indexOfQuoted(Buffer.from('usage"'), tail, 0)).toBe(-1);
    expect(indexOfQuoted(Buffer.from(''), tail, 0)).toBe(-1);
  });
});

describe('lastIndexOfQuoted', () => {
  it('finds the last quoted key where Buffer#lastIndexOf of the whole needle does', () => {
    const needle = Buffer.from('"usage":');
    const colonTail = Buffer.from('usage":');
    for (const text of ['{"usage":{"a":1},"x":"nousage":}', '{"usage":1,"usage":2}', '{"nousage":1}', 'usage":', '"usage":', '', '{"b":"usage":"}']) {
      const bytes = Buffer.from(text);
      expect(lastIndexOfQuoted(bytes, colonTail), text).toBe(bytes.lastIndexOf(needle));
    }
  });
});
