import { describe, expect, it } from 'vitest';
import { findRepeatedKey } from './find-repeated-key.js';

/** The scanner's contract is "after JSON.parse accepted the text": every case here is valid JSON. */
function repeated(text: string): string | undefined {
  JSON.parse(text);
  return findRepeatedKey(text);
}

describe('findRepeatedKey', () => {
  it('finds nothing in bodies whose objects name each key once', () => {
    expect(repeated('{}')).toBeUndefined();
    expect(repeated('[]')).toBeUndefined();
    expect(repeated('"model"')).toBeUndefined();
    expect(repeated('12')).toBeUndefined();
    expect(repeated('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"max_tokens":5}')).toBeUndefined();
    expect(repeated(' { "a" : 1 , "b" : [ 1 , 2 ] , "c" : { "a" : 1 } } ')).toBeUndefined();
  });

  it('names a key written twice in one object', () => {
    expect(repeated('{"model":"a","model":"b"}')).toBe('model');
    expect(repeated('{"model":"gpt-4o-mini","max_tokens":100000,"messages":[],"max_tokens":5}')).toBe('max_tokens');
    expect(repeated('{ "n" : 128 ,\n\t"n" : 1 }')).toBe('n');
    expect(repeated('{"":1,"":2}')).toBe('');
  });

  it('allows the same key in different objects, at any depth', () => {
    expect(repeated('{"a":{"a":{"a":1}},"b":{"a":2}}')).toBeUndefined();
    expect(repeated('[{"role":"user"},{"role":"assistant"},{"role":"user"}]')).toBeUndefined();
    expect(repeated('{"messages":[{"role":"user","content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}],"role":"x"}')).toBeUndefined();
  });

  it('finds a repeat in a nested object, an array of objects, and after a nested object closes', () => {
    expect(repeated('{"generationConfig":{"maxOutputTokens":100000,"maxOutputTokens":5}}')).toBe('maxOutputTokens');
    expect(repeated('{"messages":[{"role":"user"},{"role":"user","role":"system"}]}')).toBe('role');
    expect(repeated('{"a":1,"b":{"c":{"a":2}},"a":3}')).toBe('a');
    expect(repeated('{"a":[{"b":1},{"c":2}],"d":[[{"e":1}]],"a":1}')).toBe('a');
  });

  it('reads values that are strings as values, never as keys', () => {
    expect(repeated('{"a":"a","b":"a"}')).toBeUndefined();
    expect(repeated('{"a":["a","a"],"b":{"a":"a"}}')).toBeUndefined();
    expect(repeated('["a","a",{"a":"a"}]')).toBeUndefined();
  });

  it('is not fooled by braces, brackets, commas, colons and quotes inside strings', () => {
    expect(repeated('{"text":"{\\"text\\":1,\\"text\\":2}","other":"}],{[\\"x\\":"}')).toBeUndefined();
    expect(repeated('{"text":"a \\"quoted\\" word, and: a {brace}","text":"again"}')).toBe('text');
    expect(repeated('{"k\\"ey":1,"k\\"ey":2}')).toBe('k"ey');
    expect(repeated('{"k\\"ey":1,"k\\\\":2}')).toBeUndefined();
  });

  it('counts the backslashes before a quote to tell an escaped quote from the end of a string', () => {
    // "a\\" ends after the second backslash: the next string is a key.
    expect(repeated('{"x":"a\\\\","x":1}')).toBe('x');
    expect(repeated('{"x":"a\\\\\\"","y":1}')).toBeUndefined();
    expect(repeated('{"x":"\\\\\\\\","x":1}')).toBe('x');
    expect(repeated('{"\\\\":1,"\\\\":2}')).toBe('\\');
  });

  it('compares keys as JSON.parse decodes them', () => {
    expect(repeated('{"model":"a","mo\\u0064el":"b"}')).toBe('model');
    expect(repeated('{"mo\\u0064el":"a","model":"b"}')).toBe('model');
    expect(repeated('{"\\u006d\\u006f\\u0064\\u0065\\u006c":"a","mo\\u0064el":"b"}')).toBe('model');
    expect(repeated('{"a\\/b":1,"a/b":2}')).toBe('a/b');
    expect(repeated('{"\\u00e9":1,"é":2}')).toBe('é');
    expect(repeated('{"\\ud83d\\ude00":1,"😀":2}')).toBe('😀');
    expect(repeated('{"model":"a","mo\\u0064els":"b"}')).toBeUndefined();
    expect(repeated('{"é":1,"e":2,"😀":3,"😁":4}')).toBeUndefined();
  });

  it('handles objects of many keys (a Set past the linear limit) with and without a repeat', () => {
    const keys = Array.from({ length: 5000 }, (_unused, index) => `"key${index}":${index}`);
    expect(repeated(`{${keys.join(',')}}`)).toBeUndefined();
    expect(repeated(`{${keys.join(',')},"key17":1}`)).toBe('key17');
    expect(repeated(`{${keys.join(',')},"key\\u0031":1}`)).toBe('key1');
    // The big object's Set is its own: siblings and children start empty.
    expect(repeated(`{"big":{${keys.join(',')}},"small":{"key1":1},"key1":{"key1":{${keys.join(',')}}}}`)).toBeUndefined();
    expect(repeated(`{"big":{${keys.join(',')},"inner":{"key1":1,"key1":2}}}`)).toBe('key1');
    expect(repeated(`{"big":{${keys.slice(0, 20).join(',')},"inner":{"a":1}},"big":1}`)).toBe('big');
  });

  it('finds nothing on the next call once a call returned early or grew its stacks', () => {
    expect(repeated(`{"a":${'['.repeat(5000)}{"b":1,"b":2}${']'.repeat(5000)}}`)).toBe('b');
    expect(repeated('{"a":{"x":1},"b":{"x":1}}')).toBeUndefined();
    const deep = `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`;
    expect(repeated(deep)).toBeUndefined();
    expect(repeated('{"a":1,"b":2}')).toBeUndefined();
  });

  it('agrees with a reference tokenizer on random bodies with and without repeats', () => {
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % below;
    };
    const names = ['a', 'b', 'mo\\u0064el', 'model', 'k\\"', 'k\\\\', '{', '}:,[', 'é', '\\u00e9'];
    const value = (depth: number): string => {
      const pick = random(depth > 3 ? 3 : 6);
      if (pick === 0) return String(random(1000));
      if (pick === 1) return `"${names[random(names.length)]}"`;
      if (pick === 2) return 'null';
      if (pick === 3) return `[${Array.from({ length: random(4) }, () => value(depth + 1)).join(',')}]`;
      const count = random(pick === 5 ? 30 : 5);
      return `{${Array.from({ length: count }, () => ` "${names[random(names.length)]}${random(3) === 0 ? random(40) : ''}" : ${value(depth + 1)}`).join(',')}}`;
    };
    let withRepeat = 0;
    for (let round = 0; round < 3000; round += 1) {
      const text = value(0);
      const expected = referenceRepeatedKey(text);
      expect(repeated(text), text).toBe(expected);
      if (expected !== undefined) withRepeat += 1;
    }
    // Both kinds are well represented.
    expect(withRepeat).toBeGreaterThan(200);
    expect(withRepeat).toBeLessThan(2700);
  });
});

/** The audit probe's tokenizer: each string decoded by JSON.parse, a Set per object. Slow and plain. */
function referenceRepeatedKey(text: string): string | undefined {
  const stack: Array<Set<string> | null> = [];
  let lastString: string | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index]!;
    if (character === '"') {
      let end = index + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      lastString = JSON.parse(text.slice(index, end + 1)) as string;
      index = end;
      continue;
    }
    if (character === '{') stack.push(new Set());
    else if (character === '[') stack.push(null);
    else if (character === '}' || character === ']') stack.pop();
    else if (character === ':') {
      const keys = stack.at(-1);
      if (keys && lastString !== undefined) {
        if (keys.has(lastString)) return lastString;
        keys.add(lastString);
      }
    }
    if (!/\s/.test(character)) lastString = undefined;
  }
  return undefined;
}
