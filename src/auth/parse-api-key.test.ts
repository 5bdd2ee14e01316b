import { describe, expect, it } from 'vitest';
import { bearerValue, parseApiKey } from './parse-api-key.js';

const key48 = `sk-${'aB3'.repeat(16)}`;

describe('parseApiKey', () => {
  it('reads `sk-` + 48 letters and digits as a key without a channel pin', () => {
    expect(parseApiKey(key48)).toEqual({ key: key48, channelId: undefined });
  });

  it('reads `sk-<key>-<channelId>` as the key pinned to that channel', () => {
    expect(parseApiKey(`${key48}-42`)).toEqual({ key: key48, channelId: 42 });
  });

  it('adds the `sk-` prefix to a key sent without it, as new-api does', () => {
    expect(parseApiKey('aB3'.repeat(16))).toEqual({ key: key48, channelId: undefined });
  });

  it('ignores surrounding whitespace', () => {
    expect(parseApiKey(`  ${key48}-7 `)).toEqual({ key: key48, channelId: 7 });
  });

  it.each([
    ['an empty value', ''],
    ['blanks', '   '],
    ['the bare prefix', 'sk-'],
    ['a non-numeric pin', `${key48}-abc`],
    ['an empty pin', `${key48}-`],
    ['two pins', `${key48}-1-2`],
    ['an inner space', 'sk-abc def'],
    ['a leading dash', 'sk--12'],
  ])('refuses %s', (_name, raw) => {
    expect(parseApiKey(raw)).toBeUndefined();
  });
});

describe('bearerValue', () => {
  it('reads the value of a Bearer header, whatever the scheme case', () => {
    expect(bearerValue(`Bearer ${key48}`)).toBe(key48);
    expect(bearerValue(`bearer   ${key48}  `)).toBe(key48);
  });

  it.each([
    [`Bearer \u00a0${key48}`, key48],
    [`Bearer ${key48}\t`, key48],
    [`Bearer \t${key48}`, key48],
    ['Bearer a b', 'a b'],
    [`Bearer ${key48}`, key48],
  ])('reads %j as the regular expression does, plain form or not', (header, expected) => {
    expect(bearerValue(header)).toBe(expected);
  });

  it.each([undefined, '', 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', `Token ${key48}`])('answers undefined for %j', (header) => {
    expect(bearerValue(header)).toBeUndefined();
  });
});
