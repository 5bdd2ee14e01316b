import { describe, expect, it } from 'vitest';
import { errorStyleForPath } from './error-style-for-path.js';

describe('errorStyleForPath', () => {
  it.each([
    ['/v1/chat/completions', 'openai'],
    ['/v1/messages?beta=true', 'anthropic'],
    ['/v1beta/models/gemini-2.5-pro:generateContent', 'gemini'],
    ['/v1beta/openai/chat/completions', 'openai'],
    ['/api/admin/channels', 'api'],
    ['/suno/fetch', 'task'],
    ['/kling/v1/videos/text2video', 'task'],
    ['/mj/submit/imagine', 'mj'],
    ['/mj-relax/mj/task/x/fetch', 'mj'],
    ['/mjx/submit', 'openai'],
    ['/mj-fast/other', 'openai'],
  ])('%s → %s', (path, style) => {
    expect(errorStyleForPath(path)).toBe(style);
  });
});
