import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/support/seeded-random.js';
import { findTopLevelUsage } from './find-top-level-usage.js';

const usage = { prompt_tokens: 14, completion_tokens: 12, total_tokens: 26, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } };

function completion(content: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage,
    service_tier: 'default',
    system_fingerprint: 'fp_1',
    ...extra,
  };
}

const find = (text: string) => findTopLevelUsage(Buffer.from(text, 'utf8'));

describe('findTopLevelUsage', () => {
  it('reads the usage of a chat completion without parsing its choices', () => {
    expect(find(JSON.stringify(completion('Hello!')))).toEqual(usage);
    expect(find(`${JSON.stringify(completion('Hello!'), null, 2)}\n`)).toEqual(usage);
    // A space before the colon is valid JSON this path does not look for: the caller parses everything.
    expect(find('{"id":"x","usage" :{"prompt_tokens":1}}')).toBeUndefined();
    expect(find(JSON.stringify({ usage }))).toEqual(usage);
  });

  it('is not fooled by "usage" written inside content strings', () => {
    const tricky = [
      '"usage":{"prompt_tokens":999999}',
      '"usage":{"prompt_tokens":1}}',
      'x","usage":{"prompt_tokens":5},"y":"',
      '\\"usage\\":{}',
      '\\\\"usage":{"prompt_tokens":7}',
      '{"usage":{"prompt_tokens":3}}}]}',
      'ünïcödé 日本語 "usage": 🙂',
    ];
    for (const content of tricky) {
      // The model's text after the real usage (a field some vendors add) and before it.
      expect(find(JSON.stringify(completion(content)))).toEqual(usage);
      expect(find(JSON.stringify({ ...completion('ok'), note: content }))).toEqual(usage);
      // Only the content mentions usage: nothing top-level to find, so the caller parses everything.
      const { usage: _dropped, ...withoutUsage } = completion(content);
      expect(find(JSON.stringify(withoutUsage))).toBeUndefined();
    }
  });

  it('declines a usage that is not the root object’s own', () => {
    expect(find(JSON.stringify({ id: 'x', choices: [{ usage: { prompt_tokens: 1 } }] }))).toBeUndefined();
    expect(find(JSON.stringify({ id: 'x', usage, data: { usage: { prompt_tokens: 2 } } }))).toBeUndefined();
    expect(find(JSON.stringify([{ usage }]))).toBeUndefined();
    expect(find(`${JSON.stringify({ usage })}{}`)).toBeUndefined();
    // A key that only ends in `"usage` (its quote escaped) is another key.
    const otherKey = JSON.stringify({ id: 'x', 'weird"usage': { prompt_tokens: 1 } });
    expect(otherKey).toContain('"usage":');
    expect(find(otherKey)).toBeUndefined();
  });

  it('declines a usage that is null, not an object, or cut off', () => {
    expect(find(JSON.stringify({ id: 'x', usage: null }))).toBeUndefined();
    expect(find(JSON.stringify({ id: 'x', usage: [1] }))).toBeUndefined();
    expect(find(JSON.stringify({ id: 'x', usage: 5 }))).toBeUndefined();
    const whole = JSON.stringify(completion('Hello'));
    for (let cut = 1; cut < 60; cut += 1) expect(find(whole.slice(0, whole.length - cut))).toBeUndefined();
    expect(find('')).toBeUndefined();
  });

  it('takes the last usage when the key repeats, as JSON.parse does', () => {
    const text = `{"usage":{"prompt_tokens":1},"id":"x","usage":{"prompt_tokens":2}}`;
    expect(find(text)).toEqual((JSON.parse(text) as { usage: unknown }).usage);
  });

  it('agrees with JSON.parse on random answers whose strings are full of usage-like text', () => {
    const random = seededRandom(42);
    const pieces = ['"usage":', '\\', '"', '{', '}', '[', ']', ',', ':', 'usage', 'é', '日', '\n', ' ', 'a', '0'];
    const text = () => Array.from({ length: Math.floor(random() * 12) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
    let found = 0;
    for (let round = 0; round < 3_000; round += 1) {
      const answer: Record<string, unknown> = { id: text() };
      if (random() < 0.5) answer.choices = [{ message: { content: text(), usage: random() < 0.2 ? { nested: text() } : undefined } }];
      if (random() < 0.8) answer.usage = random() < 0.9 ? { prompt_tokens: Math.floor(random() * 100), label: text() } : null;
      if (random() < 0.5) answer.after = { text: text(), list: [text(), { usage: text() }] };
      const json = JSON.stringify(answer);
      const result = find(json);
      if (result !== undefined) {
        found += 1;
        expect({ json, result }).toEqual({ json, result: (JSON.parse(json) as { usage: unknown }).usage });
      }
    }
    expect(found).toBeGreaterThan(1_000);
  });
});
