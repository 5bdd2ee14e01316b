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

  it('an error whose code says the request is at fault is the 400 the upstream would have answered: back to the client, not held against the channel', () => {
    for (const code of ['invalid_request_error', 'INVALID_ARGUMENT', 'invalid_prompt']) {
      const failure = readInBandFailure([start, { type: 'error', message: 'prompt is too long', code }, finish], 'sk-channel-key-1234');
      expect(failure).toEqual({ kind: 'status', status: 400, message: 'prompt is too long' });
      expect(classifyUpstreamFailure(failure!)).toEqual({ retry: false, setKeyAside: false, disableChannel: false, countsAsChannelFailure: false });
    }
    expect(readInBandFailure([start, { type: 'error', message: 'too large', code: 'request_too_large' }, finish], 'k')).toMatchObject({ kind: 'status', status: 413 });
  });

  it('judges by the code alone, never by the message, which may quote the request', () => {
    expect(readInBandFailure([start, { type: 'error', message: 'invalid_request_error: bad prompt', code: 'overloaded_error' }, finish], 'k')).toMatchObject({ kind: 'connection' });
    expect(readInBandFailure([start, { type: 'error', message: 'INVALID_ARGUMENT' }, finish], 'k')).toMatchObject({ kind: 'connection' });
  });

  it('an Anthropic account out of credit, sent as an invalid_request_error, still fails over and disables the channel', () => {
    const failure = readInBandFailure([start, { type: 'error', message: 'Your credit balance is too low to access the Anthropic API.', code: 'invalid_request_error' }, finish], 'k');
    expect(failure).toMatchObject({ kind: 'status', status: 400, reason: 'account_dead' });
    expect(classifyUpstreamFailure(failure!)).toMatchObject({ retry: true, disableChannel: true });
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

  it('a failed answer whose code names the client\'s input (invalid_prompt) is its 400, key masked', () => {
    const failure = readFailedAnswer(answer('error') as never, { status: 'failed', error: { code: 'invalid_prompt', message: 'sk-channel-key-1234 prompt refused' } }, 'sk-channel-key-1234');
    expect(failure).toEqual({ kind: 'status', status: 400, message: '*** prompt refused' });
  });

  it('is undefined for an answer that did not fail', () => {
    expect(readFailedAnswer(answer('stop') as never, { status: 'completed' }, 'sk-channel-key-1234')).toBeUndefined();
  });
});
