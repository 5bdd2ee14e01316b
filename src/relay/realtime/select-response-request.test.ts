import { describe, expect, it } from 'vitest';
import { metadataKey, type ResponseRequest } from './read-response-request.js';
import { readCreatedResponse, selectResponseRequest } from './select-response-request.js';

const request = (eventId: string, outOfBand: boolean, metadata: Record<string, string> | null = null): ResponseRequest => ({ eventId, ownInputText: undefined, outOfBand, metadata: metadataKey(metadata) ?? null });
const created = (response: Record<string, unknown>) => readCreatedResponse({ type: 'response.created', event_id: 'event_1', response: { id: 'resp_1', object: 'realtime.response', ...response } });
// As OpenAI sends them (the openapi example of `response.created`): server VAD's in the default conversation, no metadata.
const vad = created({ conversation_id: 'conv_1', metadata: null });

describe('readCreatedResponse', () => {
  it('reads the conversation and the metadata a response.created echoes, and leaves out what it omits', () => {
    expect(vad).toEqual({ conversationId: 'conv_1', metadata: null });
    expect(created({ conversation_id: null, metadata: { b: '2', a: '1' } })).toEqual({ conversationId: null, metadata: metadataKey({ a: '1', b: '2' }) });
    expect(created({})).toEqual({ conversationId: undefined, metadata: undefined });
    expect(readCreatedResponse({ type: 'response.created' })).toEqual({ conversationId: undefined, metadata: undefined });
  });
});

describe('selectResponseRequest', () => {
  it('gives a server VAD response none of the out-of-band requests waiting, and the out-of-band response its own', () => {
    const waiting = [request('evt_oob', true)];
    expect(selectResponseRequest(waiting, vad)).toBeUndefined();
    expect(selectResponseRequest(waiting, created({ conversation_id: null, metadata: null }))).toBe(0);
  });

  it('gives a server VAD response none of the requests with metadata, in the default conversation too', () => {
    const waiting = [request('evt_tagged', false, { purpose: 'summary' })];
    expect(selectResponseRequest(waiting, vad)).toBeUndefined();
    expect(selectResponseRequest(waiting, created({ conversation_id: 'conv_1', metadata: { purpose: 'summary' } }))).toBe(0);
  });

  it('pairs each response with the oldest request of its conversation and metadata, out of turn', () => {
    const waiting = [request('evt_a', true, { n: 'a' }), request('evt_b', false), request('evt_c', true, { n: 'c' })];
    expect(selectResponseRequest(waiting, created({ conversation_id: 'conv_1', metadata: null }))).toBe(1);
    expect(selectResponseRequest(waiting, created({ conversation_id: null, metadata: { n: 'c' } }))).toBe(2);
    // Out of band with metadata no request gave: still a client's, the oldest out-of-band one.
    expect(selectResponseRequest(waiting, created({ conversation_id: null, metadata: null }))).toBe(0);
  });

  it('gives a response that server VAD cannot have made a request even when none matches it', () => {
    const waiting = [request('evt_plain', false), request('evt_oob', true, { n: 'x' })];
    // Out of band: the out-of-band request, though its metadata differs.
    expect(selectResponseRequest(waiting, created({ conversation_id: null, metadata: { n: 'y' } }))).toBe(1);
    // Metadata no request gave, in the default conversation: the oldest of that conversation.
    expect(selectResponseRequest(waiting, created({ conversation_id: 'conv_1', metadata: { n: 'y' } }))).toBe(0);
    // Out of band, with no out-of-band request waiting: the oldest.
    expect(selectResponseRequest([request('evt_plain', false)], created({ conversation_id: null, metadata: null }))).toBe(0);
  });

  it('answers the oldest request when the response.created tells neither, and none when none waits', () => {
    const waiting = [request('evt_oob', true), request('evt_plain', false)];
    expect(selectResponseRequest(waiting, created({}))).toBe(0);
    expect(selectResponseRequest([], created({}))).toBeUndefined();
    expect(selectResponseRequest([], vad)).toBeUndefined();
  });
});
