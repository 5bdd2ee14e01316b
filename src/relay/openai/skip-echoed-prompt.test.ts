import { describe, expect, it } from 'vitest';
import { createEchoedPromptSkipper, echoedPromptOf, skipEchoedPrompt } from './skip-echoed-prompt.js';

describe('echoedPromptOf', () => {
  it('is undefined without echo: true (nothing to skip, no work per delta)', () => {
    expect(echoedPromptOf({ prompt: 'hi' })).toBeUndefined();
    expect(echoedPromptOf({ prompt: 'hi', echo: 'true' })).toBeUndefined();
  });

  it('gives a string prompt to every choice, and a list of prompts n choices each, prompt by prompt', () => {
    expect(echoedPromptOf({ prompt: 'hi', echo: true, n: 3 })?.(2)).toBe('hi');
    const listed = echoedPromptOf({ prompt: ['a', 'b'], echo: true, n: 2 })!;
    expect([0, 1, 2, 3].map(listed)).toEqual(['a', 'a', 'b', 'b']);
  });

  it('knows no text for a prompt given as token ids', () => {
    expect(echoedPromptOf({ prompt: [1, 2, 3], echo: true })?.(0)).toBeUndefined();
    expect(echoedPromptOf({ prompt: [[1, 2], 'b'], echo: true })?.(0)).toBeUndefined();
  });
});

describe('skipEchoedPrompt', () => {
  it('drops the prompt at the head of the text, and nothing when the text does not start with it', () => {
    expect(skipEchoedPrompt('Once upon a time', 'Once upon')).toBe(' a time');
    expect(skipEchoedPrompt('A time', 'Once upon')).toBe('A time');
    expect(skipEchoedPrompt('Once upon', undefined)).toBe('Once upon');
  });
});

describe('createEchoedPromptSkipper', () => {
  it('skips the prompt across deltas of one choice, then counts everything', () => {
    const skip = createEchoedPromptSkipper(() => 'Once upon');
    expect(['On', 'ce up', 'on a', ' time', 'Once'].map((text) => skip(0, text))).toEqual(['', '', ' a', ' time', 'Once']);
  });

  it('stops skipping at the first delta that is not the prompt (an upstream that ignored echo)', () => {
    const skip = createEchoedPromptSkipper(() => 'Once upon');
    expect(['Hello', 'Once'].map((text) => skip(0, text))).toEqual(['Hello', 'Once']);
  });

  it('keeps each choice apart', () => {
    const skip = createEchoedPromptSkipper((index) => ['ab', 'cd'][index]);
    expect([skip(0, 'a'), skip(1, 'cdX'), skip(0, 'bY')]).toEqual(['', 'X', 'Y']);
  });
});
