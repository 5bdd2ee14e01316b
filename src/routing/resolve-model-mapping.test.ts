import { describe, expect, it } from 'vitest';
import { resolveModelMapping } from './resolve-model-mapping.js';

describe('resolveModelMapping', () => {
  it('keeps a name that has no mapping', () => {
    expect(resolveModelMapping({}, 'gpt-4o')).toEqual({ ok: true, upstreamModel: 'gpt-4o' });
  });

  it('follows chained mappings to the end', () => {
    expect(resolveModelMapping({ a: 'b', b: 'c' }, 'a')).toEqual({ ok: true, upstreamModel: 'c' });
  });

  it('reports a loop instead of spinning', () => {
    expect(resolveModelMapping({ a: 'b', b: 'a' }, 'a')).toEqual({ ok: false, loop: ['a', 'b', 'a'] });
  });

  it('treats a self-mapping as no mapping', () => {
    expect(resolveModelMapping({ a: 'a' }, 'a')).toEqual({ ok: true, upstreamModel: 'a' });
  });
});
