import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countTextTokens } from './count-tokens.js';
import { estimateTextTokens } from './estimate-text-tokens.js';

const repositoryRoot = join(import.meta.dirname, '../..');
const recordedRoot = join(repositoryRoot, '../shared/reference/recorded');

/** Every string field an LLM wrote or read in a recorded stream or response: text, thinking, tool arguments. */
const writtenFields = new Set(['content', 'text', 'thinking', 'partial_json', 'arguments', 'reasoning_content', 'input', 'args', 'delta']);
function collectWritten(value: unknown, key: string, into: string[]): void {
  if (typeof value === 'string') {
    if (writtenFields.has(key)) into.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectWritten(item, key, into);
  } else if (value !== null && typeof value === 'object') {
    for (const [field, inner] of Object.entries(value)) collectWritten(inner, field, into);
  }
}

function parseLines(text: string): unknown[] {
  return text.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line) as unknown];
    } catch {
      return [];
    }
  });
}

/** The recorded provider traffic (shared/reference/recorded): each file's written text, and each file as raw JSON. */
function recordedSamples(): [string, string][] {
  const samples: [string, string][] = [];
  for (const folder of readdirSync(recordedRoot, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    for (const file of readdirSync(join(recordedRoot, folder.name))) {
      const raw = readFileSync(join(recordedRoot, folder.name, file), 'utf8');
      // Gemini and Anthropic records carry opaque signatures (random base64): the raw files of those
      // are random strings, not text, and are not claimed.
      if (!/"(thoughtSignature|signature)"\s*:\s*"[^"]/.test(raw)) samples.push([`${folder.name}/${file} (raw JSON)`, raw]);
      const written: string[] = [];
      collectWritten(file.endsWith('.json') ? JSON.parse(raw) : parseLines(raw), '', written);
      const text = written.join('');
      if (text !== '') samples.push([`${folder.name}/${file} (written text)`, text]);
    }
  }
  return samples;
}

const ordinary: [string, string][] = [
  ['short greeting', 'Say hello'],
  ['one word', 'hi'],
  [
    'English prose',
    'The gateway reserves the most a request can cost before it calls the upstream, and settles the reservation at the actual charge afterwards. Nobody should be able to spend more than their balance, even when many requests arrive at once.',
  ],
  ['arithmetic in prose', 'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185, and 185 × 12 = 2220; in 2024-01-15T10:30:00Z terms, 3.14159265358979.'],
  [
    'Python',
    'def fibonacci(n: int) -> list[int]:\n    """Return the first n Fibonacci numbers."""\n    numbers = [0, 1]\n    while len(numbers) < n:\n        numbers.append(numbers[-1] + numbers[-2])\n    return numbers[:n]\n\n\nif __name__ == "__main__":\n    print(fibonacci(10))\n',
  ],
  ['JSON tool schema', JSON.stringify([{ type: 'function', function: { name: 'get_weather', description: 'Current weather for a city', parameters: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['location'] } } }])],
  ['dense JSON', JSON.stringify([{ a: 1, b: 2 }, { c: [1, 2, 3] }, { d: null, e: true }])],
  ['Chinese', '人工智能是计算机科学的一个分支，它企图了解智能的实质，并生产出一种新的能以人类智能相似的方式做出反应的智能机器。该领域的研究包括机器人、语言识别、图像识别、自然语言处理和专家系统等。'],
  ['Japanese', '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。'],
  ['Korean', '대한민국은 동아시아의 한반도 남부에 위치한 민주공화국이다. 수도는 서울특별시이며, 국기는 태극기, 국가는 애국가이다.'],
  ['German', 'Größenwahn und Übermut führen selten zum Ziel; die Bürgerinnen und Bürger wünschen sich Ruhe und äußerst schöne Straßen.'],
  ['emoji', '🤖👍🏽🎉 Hello 👨‍👩‍👧‍👦 world 🚀🔥'],
  ['UUIDs', '550e8400-e29b-41d4-a716-446655440000 6ba7b810-9dad-11d1-80b4-00c04fd430c8'],
  ['indentation and blank lines', `a${' '.repeat(40)}b\n\n\n\n\t\t\t\tc\n        d   \n`],
  ...['src/relay/relay-envelope.ts', 'src/billing/compute-charge.ts', 'src/streaming/decode-sse.ts', 'README.md', 'docs/behaviour.md', 'package.json'].map(
    (path): [string, string] => [path, readFileSync(join(repositoryRoot, path), 'utf8')],
  ),
];

/** Scripts outside the claim's "ordinary text" (they tokenize to few tokens per character): still at or above. */
const otherScripts: [string, string][] = [
  ['Russian', 'Москва — столица России, город федерального значения, административный центр Центрального федерального округа.'],
  ['Arabic', 'اللغة العربية هي أكثر اللغات السامية تحدثاً، وإحدى أكثر اللغات انتشاراً في العالم، يتحدثها أكثر من 467 مليون نسمة.'],
  ['Hindi', 'भारत दक्षिण एशिया में स्थित एक देश है। यह जनसंख्या के हिसाब से दुनिया का सबसे बड़ा देश है।'],
];

describe('estimateTextTokens', () => {
  const recorded = recordedSamples();

  it('finds the recorded traffic', () => {
    expect(recorded.length).toBeGreaterThan(20);
  });

  it('is 0 for the empty text and 1 for one character', () => {
    expect(estimateTextTokens('')).toBe(0);
    expect(estimateTextTokens('a')).toBe(1);
    expect(estimateTextTokens('字')).toBe(1);
  });

  it('is at least the exact o200k count, and at most about twice it, for ordinary text, code, JSON and CJK', async () => {
    for (const [name, text] of [...ordinary, ...recorded]) {
      const exact = await countTextTokens(text);
      const estimate = estimateTextTokens(text);
      expect(estimate, `${name}: estimate ${estimate} vs exact ${exact}`).toBeGreaterThanOrEqual(exact);
      expect(estimate, `${name}: estimate ${estimate} vs exact ${exact}`).toBeLessThanOrEqual(Math.max(2, Math.ceil(exact * 2.1)));
    }
  });

  it('is at least the exact count for other scripts too (within 4×: Devanagari is the costliest)', async () => {
    for (const [name, text] of otherScripts) {
      const exact = await countTextTokens(text);
      const estimate = estimateTextTokens(text);
      expect(estimate, `${name}: estimate ${estimate} vs exact ${exact}`).toBeGreaterThanOrEqual(exact);
      expect(estimate, `${name}: estimate ${estimate} vs exact ${exact}`).toBeLessThanOrEqual(exact * 4);
    }
  });

  it('splits words where the tokenizer does: case changes, digits after a space, the last space of a run', () => {
    // Hand-computed from the rule: 'Say' ⌈3/3⌉ + 'hello' ⌈5/3⌉ = 3; a joined space costs nothing.
    expect(estimateTextTokens('Say hello')).toBe(3);
    // 'camel' 2 + 'Case' 2 + 'Word' 2.
    expect(estimateTextTokens('camelCaseWord')).toBe(6);
    // 'HTTPServer' is one run of 10 letters → 4.
    expect(estimateTextTokens('HTTPServer')).toBe(4);
    // 'page' 2 + lone space before digits 1 + '1234' ⌈4/3⌉ = 2.
    expect(estimateTextTokens('page 1234')).toBe(5);
    // 'a' 1 + 9 spaces: 8 in one token + the last joining 'b' → 1 + 'b' 1.
    expect(estimateTextTokens(`a${' '.repeat(9)}b`)).toBe(3);
    // '{"' 1 + 'a' 1 + '":' 1 + '1' 1 + '}' 1.
    expect(estimateTextTokens('{"a":1}')).toBe(5);
    // Newline runs are one token; each CJK character one.
    expect(estimateTextTokens('\n\n\n')).toBe(1);
    expect(estimateTextTokens('你好')).toBe(2);
  });
});
