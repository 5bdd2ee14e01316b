import { describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../canonical/canonical-stream-part.js';
import { classifyUpstreamFailure } from '../routing/classify-upstream-failure.js';
import { readFailedAnswer, readInBandFailure } from './read-in-band-failure.js';

const start: CanonicalStreamPart = { type: 'start', id: 'r1', model: 'gemini', created: 0 };
const text: CanonicalStreamPart = { type: 'text-delta', text: 'Partial answer' };
const finish: CanonicalStreamPart = { type: 'finish', finishReason: { unified: 'error', raw: undefined }, usage: undefined };

describe('readInBandFailure', () => {
  it('turns a collected stream that carried an error part into a failure naming the upstream error', () => {
    const failure = readInBandFailure([start, text, { type: 'error', message: 'Upstream overloaded', code: 'UNAVAILABLE' }, finish], 'sk-channel-key-1234');
    expect(failure).toEqual({ kind: 'connection', message: 'The upstream failed mid-answer: Upstream overloaded', detail: '(UNAVAILABLE)' });
  });

  it('is retried on another channel, as a reset is', () => {
    const failure = readInBandFailure([start, { type: 'error', message: 'boom' }, finish], 'sk-channel-key-1234');
    expect(failure).toEqual({ kind: 'connection', message: 'The upstream failed mid-answer: boom' });
    expect(classifyUpstreamFailure(failure!)).toMatchObject({ retry: true, countsAsChannelFailure: true });
  });

  it('masks the channel key when the upstream quotes it', () => {
    const failure = readInBandFailure([start, { type: 'error', message: 'key sk-channel-key-1234 is over quota' }, finish], 'sk-channel-key-1234');
    expect(failure?.message).toBe('The upstream failed mid-answer: key *** is over quota');
  });

  it('is undefined for a stream without an error part', () => {
    expect(readInBandFailure([start, text, { type: 'finish', finishReason: { unified: 'stop', raw: 'STOP' }, usage: undefined }], 'sk-channel-key-1234')).toBeUndefined();
  });
});

describe('readFailedAnswer', () => {
  const answer = (unified: 'error' | 'stop') => ({ id: 'resp_1', model: 'm', created: 0, content: [{ type: 'text' as const, text: 'Hello th' }], finishReason: { unified, raw: unified === 'error' ? 'failed' : 'completed' } });

  it('turns a whole answer that says it failed into a failure naming the upstream error, key masked', () => {
    const failure = readFailedAnswer(answer('error') as never, { status: 'failed', error: { code: 'server_error', message: 'sk-channel-key-1234 broke' } }, 'sk-channel-key-1234');
    expect(failure).toEqual({ kind: 'connection', message: 'The upstream failed mid-answer: *** broke', detail: '(server_error)' });
  });

  it('is undefined for an answer that did not fail', () => {
    expect(readFailedAnswer(answer('stop') as never, { status: 'completed' }, 'sk-channel-key-1234')).toBeUndefined();
  });
});
