import { describe, expect, it } from 'vitest';
import { readMjSubmitAnswer } from './read-mj-submit-answer.js';

describe('readMjSubmitAnswer', () => {
  it('accepts 1, 22 and 21 as a submitted task', () => {
    for (const code of [1, 21, 22]) {
      expect(readMjSubmitAnswer('IMAGINE', { code, description: 'ok', result: '17000' })).toMatchObject({ kind: 'accepted', upstreamId: '17000', status: 'submitted', progress: 0, httpStatus: 200 });
    }
  });

  it('records an existing finished task (21 with status SUCCESS) as finished', () => {
    expect(readMjSubmitAnswer('UPSCALE', { code: 21, result: '17000', properties: { status: 'SUCCESS', imageUrl: 'https://cdn/x.png' } })).toMatchObject({ status: 'success', progress: 100 });
  });

  it('finishes an upload at once, with its links kept', () => {
    const outcome = readMjSubmitAnswer('UPLOAD', { code: 1, description: 'ok', result: ['https://cdn/a.png'] });
    expect(outcome).toMatchObject({ kind: 'accepted', upstreamId: '', status: 'success' });
    expect(outcome.kind === 'accepted' && JSON.parse(outcome.result)).toEqual({ code: 1, description: 'ok', result: ['https://cdn/a.png'] });
    expect(readMjSubmitAnswer('UPLOAD', { code: 1, result: 'https://cdn/a.png' })).toMatchObject({ kind: 'failed' });
  });

  it('fails a banned prompt (24) or a refused request (4) at once, free, without another channel', () => {
    expect(readMjSubmitAnswer('IMAGINE', { code: 24, description: 'banned prompt', properties: { bannedWord: 'x' } })).toMatchObject({ kind: 'accepted', status: 'failure', failReason: 'banned_prompt: banned prompt' });
    expect(readMjSubmitAnswer('IMAGINE', { code: 4, description: 'bad index' })).toMatchObject({ kind: 'accepted', status: 'failure', failReason: 'refused: bad index' });
  });

  it('fails over a full queue (23 → 429), a missing account (3 → 503) and anything else (500), without the proxy’s words', () => {
    expect(readMjSubmitAnswer('IMAGINE', { code: 23, description: 'full' })).toMatchObject({ kind: 'failed', failure: { status: 429 } });
    expect(readMjSubmitAnswer('IMAGINE', { code: 3 })).toMatchObject({ kind: 'failed', failure: { status: 503 } });
    // The proxy's words name its accounts: the client is told the code alone.
    const failed = readMjSubmitAnswer('IMAGINE', { code: 9, description: 'account instance-7 is not logged in' });
    expect(failed).toMatchObject({ kind: 'failed', failure: { status: 500, message: expect.stringContaining('(code 9)') } });
    expect(JSON.stringify(failed)).not.toContain('instance-7');
  });

  it('refuses answers it cannot use', () => {
    for (const json of [null, [], { code: '1', result: 'x' }, { code: 1 }, { code: 1, result: '' }, { code: 1, result: 42 }]) {
      expect(readMjSubmitAnswer('IMAGINE', json)).toMatchObject({ kind: 'failed', failure: { status: 502 } });
    }
  });
});
