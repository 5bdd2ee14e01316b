import { describe, expect, it } from 'vitest';
import { metadataKey, type ResponseRequest } from './read-response-request.js';
import { doneWithoutCreated, echoesNothing, ResponseRequestQueue } from './response-request-queue.js';

const request = (eventId: string | undefined, outOfBand = false, metadata: Record<string, string> | null = null): ResponseRequest => ({ eventId, ownInputText: undefined, outOfBand, metadata: metadataKey(metadata) ?? null });
const queueOf = (...requests: ResponseRequest[]) => {
  const queue = new ResponseRequestQueue();
  for (const waiting of requests) queue.add(waiting);
  return queue;
};
// As OpenAI sends a response server VAD made: in the default conversation, no metadata.
const vad = { conversationId: 'conv_1', metadata: null };

describe('ResponseRequestQueue', () => {
  it('gives a response that echoes nothing the oldest request, each once', () => {
    const queue = queueOf(request('evt_a'), request('evt_b'));
    expect(queue.take(echoesNothing)?.eventId).toBe('evt_a');
    expect(queue.take()?.eventId).toBe('evt_b');
    expect(queue.take()).toBeUndefined();
    expect(queue.size).toBe(0);
  });

  it('takes the request a response echoes, out of turn, and leaves the others waiting', () => {
    const queue = queueOf(request('evt_plain'), request('evt_oob', true, { n: 'x' }));
    expect(queue.take({ conversationId: null, metadata: metadataKey({ n: 'x' }) })?.eventId).toBe('evt_oob');
    expect(queue.size).toBe(1);
    expect(queue.take()?.eventId).toBe('evt_plain');
  });

  it('gives a server VAD response none of the out-of-band requests waiting', () => {
    const queue = queueOf(request('evt_oob', true));
    expect(queue.take(vad)).toBeUndefined();
    expect(queue.size).toBe(1);
  });

  it('drops the request the upstream refused by its event id, and nothing for an id no request has', () => {
    const queue = queueOf(request('evt_a'), request(undefined), request('evt_b'));
    queue.refused('evt_b');
    queue.refused('evt_unknown');
    expect(queue.size).toBe(2);
    expect(queue.take()?.eventId).toBe('evt_a');
    expect(queue.take()?.eventId).toBeUndefined();
    expect(queue.size).toBe(0);
  });
});

describe('doneWithoutCreated', () => {
  const underWay = new Map([['resp_1', {}]]);

  it('tells a response.done of a response not under way by its id', () => {
    expect(doneWithoutCreated('resp_2', underWay)).toBe(true);
    expect(doneWithoutCreated('resp_1', underWay)).toBe(false);
  });

  it('takes a response.done naming no id for one never created only when none is under way', () => {
    expect(doneWithoutCreated(undefined, underWay)).toBe(false);
    expect(doneWithoutCreated(undefined, new Map())).toBe(true);
  });
});
