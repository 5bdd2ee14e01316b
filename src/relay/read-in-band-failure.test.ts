import { describe, expect, it } from 'vitest';
import type { CanonicalStreamPart } from '../canonical/canonical-stream-part.js';
import { classifyUpstreamFailure } from '../routing/classify-upstream-failure.js';
import { readInBandFailure } from './read-in-band-failure.js';

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
