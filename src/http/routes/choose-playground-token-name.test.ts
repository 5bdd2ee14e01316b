import { describe, expect, it } from 'vitest';
import { choosePlaygroundTokenName } from './choose-playground-token-name.js';

describe('choosePlaygroundTokenName', () => {
  it('is `playground`, or the first free numbered name when an API key already has it', () => {
    expect(choosePlaygroundTokenName(['laptop'])).toBe('playground');
    expect(choosePlaygroundTokenName(['playground'])).toBe('playground-2');
    expect(choosePlaygroundTokenName(['playground', 'playground-2'])).toBe('playground-3');
  });
});
