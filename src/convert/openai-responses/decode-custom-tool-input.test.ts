import { describe, expect, it } from 'vitest';
import { createCustomToolInputDecoder, unwrapCustomToolInput } from './decode-custom-tool-input.js';

/** A patch as Codex CLI's apply_patch takes it: newlines, quotes, backslashes, a tab, non-ASCII and an emoji (a surrogate pair). */
const patch = '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-const s = "a\\\\b";\n+const s = "café\t🌧️";\n*** End Patch';

/** Feeds the arguments in the given fragments; returns each push's text and the end. */
function decode(fragments: string[]) {
  const decoder = createCustomToolInputDecoder('apply_patch');
  const deltas = fragments.map((fragment) => decoder.push(fragment));
  return { deltas, end: decoder.end() };
}

const hasLoneSurrogate = (text: string): boolean => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

describe('createCustomToolInputDecoder', () => {
  it.each([
    ['whole', (json: string) => [json]],
    ['in 3-character fragments', (json: string) => json.match(/[\s\S]{1,3}/g)!],
    ['one UTF-16 unit at a time (inside escapes and the surrogate pair)', (json: string) => json.split('')],
  ])('streams the text of {"input": …} unescaped, %s, never splitting a character', (_name, split) => {
    for (const json of [JSON.stringify({ input: patch }), JSON.stringify({ input: patch }).replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`), ` { "input" : ${JSON.stringify(patch)} }`]) {
      const { deltas, end } = decode(split(json));
      expect(deltas.join('') + end.value.rest).toBe(patch);
      expect(end.value.input).toBe(patch);
      expect(end.value.rest).toBe('');
      expect(deltas.some(hasLoneSurrogate)).toBe(false);
      expect(end.warnings).toEqual([]);
    }
  });

  it('gives the text as it comes: the first fragment past the opening already yields text', () => {
    const { deltas } = decode(['{"in', 'put":"', '*** Begin', ' Patch\\n', '"}']);
    expect(deltas).toEqual(['', '', '*** Begin', ' Patch\n', '']);
  });

  it('arguments that do not open with "input" give nothing until the end, which hands the input on whole', () => {
    const { deltas, end } = decode(['{"note":1,', '"input":"x y"}']);
    expect(deltas).toEqual(['', '']);
    expect(end.value).toEqual({ input: 'x y', rest: 'x y' });
    expect(end.warnings).toEqual([]);
  });

  it('arguments that are no {"input": text} are handed on as the text, with a warning', () => {
    const { end } = decode(['{"patch":', '"x"}']);
    expect(end.value).toEqual({ input: '{"patch":"x"}', rest: '{"patch":"x"}' });
    expect(end.warnings).toEqual(['custom tool call "apply_patch": the arguments are not {"input": "<text>"}; handed on as the tool\'s text as they stand']);
  });
});

describe('unwrapCustomToolInput', () => {
  it('reads the input string, an empty call as empty text, anything else as it stands', () => {
    expect(unwrapCustomToolInput('t', JSON.stringify({ input: patch }))).toEqual({ value: patch, warnings: [] });
    expect(unwrapCustomToolInput('t', '')).toEqual({ value: '', warnings: [] });
    expect(unwrapCustomToolInput('t', '{"input":3}').value).toBe('{"input":3}');
    expect(unwrapCustomToolInput('t', 'not json').warnings).toHaveLength(1);
  });
});
