import { describe, expect, it } from 'vitest';
import { webToolCallFailed, webToolChannelFailure } from './count-web-tool-call.js';

describe('webToolCallFailed', () => {
  it('is true only for a JSON envelope with a non-zero numeric code', () => {
    expect(webToolCallFailed(Buffer.from('{"code":-30001,"message":"fetch failed"}'), 'application/json')).toBe(true);
    expect(webToolCallFailed(Buffer.from(' \n{"code":-20025}'), 'application/json')).toBe(true);
    expect(webToolCallFailed(Buffer.from('{"code":0,"data":"x"}'), 'application/json')).toBe(false);
    expect(webToolCallFailed(Buffer.from('{"code":"-1"}'), 'application/json')).toBe(false);
    expect(webToolCallFailed(Buffer.from('{"data":"no code"}'), 'application/json')).toBe(false);
  });

  it('is false for Markdown, text and broken JSON', () => {
    expect(webToolCallFailed(Buffer.from('# Title\n{"code":-1}'), 'application/json')).toBe(false);
    expect(webToolCallFailed(Buffer.from('{not json'), 'application/json')).toBe(false);
    expect(webToolCallFailed(Buffer.from(''), 'application/json')).toBe(false);
    expect(webToolCallFailed(Buffer.from('null'), 'application/json')).toBe(false);
  });

  it('is false for a page delivered as Markdown or text, whatever it says', () => {
    expect(webToolCallFailed(Buffer.from('{"code":404,"message":"Not Found"}'), 'text/markdown; charset=utf-8')).toBe(false);
    expect(webToolCallFailed(Buffer.from('{"code":404}'), 'text/plain')).toBe(false);
    expect(webToolCallFailed(Buffer.from('{"code":-30001}'), 'application/json; charset=utf-8')).toBe(true);
  });
});

describe('webToolChannelFailure', () => {
  const json = 'application/json';
  it.each([
    [-20021, 401],
    [-20014, 401],
    [-20025, 402],
    [-20011, 403],
    [-20033, 429],
    [-20001, 500],
  ])('reads code %i as a channel failure with status %i', (code, status) => {
    expect(webToolChannelFailure(Buffer.from(JSON.stringify({ code, message: 'm' })), json)).toMatchObject({ kind: 'status', status });
  });

  it('reads insufficient balance as a dead account, so the key is set aside, and keeps a default message', () => {
    expect(webToolChannelFailure(Buffer.from('{"code":-20025}'), json)).toMatchObject({ status: 402, reason: 'account_dead', message: expect.stringMatching(/code -20025: insufficient balance\)/) });
  });

  it('leaves the request’s own failures, successes and other bodies to the client', () => {
    expect(webToolChannelFailure(Buffer.from('{"code":-30001,"message":"fetch failed"}'), json)).toBeUndefined();
    expect(webToolChannelFailure(Buffer.from('{"code":0,"data":"x"}'), json)).toBeUndefined();
    expect(webToolChannelFailure(Buffer.from('{"code":-20025}'), 'text/markdown')).toBeUndefined();
    expect(webToolChannelFailure(Buffer.from('# {"code":-20025}'), json)).toBeUndefined();
  });
});
