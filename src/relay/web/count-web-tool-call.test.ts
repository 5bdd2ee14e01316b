import { describe, expect, it } from 'vitest';
import { webToolCallFailed } from './count-web-tool-call.js';

describe('webToolCallFailed', () => {
  it('is true only for a JSON envelope with a non-zero numeric code', () => {
    expect(webToolCallFailed(Buffer.from('{"code":-30001,"message":"fetch failed"}'))).toBe(true);
    expect(webToolCallFailed(Buffer.from(' \n{"code":-20025}'))).toBe(true);
    expect(webToolCallFailed(Buffer.from('{"code":0,"data":"x"}'))).toBe(false);
    expect(webToolCallFailed(Buffer.from('{"code":"-1"}'))).toBe(false);
    expect(webToolCallFailed(Buffer.from('{"data":"no code"}'))).toBe(false);
  });

  it('is false for Markdown, text and broken JSON', () => {
    expect(webToolCallFailed(Buffer.from('# Title\n{"code":-1}'))).toBe(false);
    expect(webToolCallFailed(Buffer.from('{not json'))).toBe(false);
    expect(webToolCallFailed(Buffer.from(''))).toBe(false);
    expect(webToolCallFailed(Buffer.from('null'))).toBe(false);
  });
});
