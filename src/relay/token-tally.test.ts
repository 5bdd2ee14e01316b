import { describe, expect, it } from 'vitest';
import { countTextTokens, loadTokenCounter } from './count-tokens.js';
import { TokenTally } from './token-tally.js';

describe('TokenTally', () => {
  it('counts all the text it was given, exactly, when asked', async () => {
    const tally = new TokenTally();
    expect(tally.isEmpty).toBe(true);
    for (const piece of ['Hello', ' from', ' the fake', ' upstream!']) tally.add(piece);
    expect(tally.isEmpty).toBe(false);
    expect(await tally.total()).toBe(await countTextTokens('Hello from the fake upstream!'));
  });

  it('tokenizes in batches once the buffer bound is reached, so the buffer stays bounded', async () => {
    await loadTokenCounter();
    // 'hello' is one token, 'hel' + 'lo' two: a tally that drained its buffer at each add counts two.
    expect(await countTextTokens('hello')).toBe(1);
    const bounded = new TokenTally(1);
    bounded.add('hel');
    bounded.add('lo');
    expect(await bounded.total()).toBe(2);
    const unbounded = new TokenTally();
    unbounded.add('hel');
    unbounded.add('lo');
    expect(await unbounded.total()).toBe(1);
  });
});
