import { describe, expect, it } from 'vitest';
import { metadataKey, type ResponseRequest } from './read-response-request.js';
import { ResponsesUnderWay } from './responses-under-way.js';

const request = (eventId: string, ownInputText?: string): ResponseRequest => ({ eventId, ownInputText, outOfBand: ownInputText !== undefined, metadata: metadataKey(null) ?? null });

/** A clock the test moves. */
function clocked() {
  const clock = { now: 1_000 };
  return { clock, responses: new ResponsesUnderWay(() => clock.now) };
}

describe('ResponsesUnderWay', () => {
  it('counts a response as under way from its request, and no longer once it is done', () => {
    const { responses } = clocked();
    expect(responses.any).toBe(false);
    responses.asked(request('evt_a'));
    expect(responses.any).toBe(true);
    expect(responses.ids).toEqual([undefined]);
    responses.created('resp_a');
    expect(responses.ids).toEqual(['resp_a']);
    expect(responses.cut).toBe(true);
    responses.takeDone('resp_a');
    expect(responses.any).toBe(false);
    expect(responses.cut).toBe(false);
  });

  it("gives each response its own text, and the unattributed deltas to the last one done", () => {
    const { responses } = clocked();
    responses.created('resp_a');
    responses.created('resp_b');
    responses.textDelta('resp_a', 'alpha');
    responses.textDelta('resp_b', 'beta');
    responses.textDelta(undefined, 'nobody');
    const first = responses.takeDone('resp_b');
    expect(first).toHaveLength(1);
    expect(first[0]?.text.isEmpty).toBe(false);
    const last = responses.takeDone('resp_a');
    expect(last).toHaveLength(2);
    expect(last.every((count) => !count.text.isEmpty)).toBe(true);
  });

  it("reads the conversation's new items into the next response, or the response's own input instead", () => {
    const { responses } = clocked();
    responses.itemAdded('item_1', 'hello there');
    responses.asked(request('evt_own', 'own input'));
    responses.created('resp_own', undefined, { conversationId: null, metadata: null });
    responses.created('resp_conv');
    const [own] = responses.takeDone('resp_own');
    const [conv] = responses.takeDone('resp_conv');
    expect(own?.input.isEmpty).toBe(false);
    expect(conv?.input.isEmpty).toBe(false);
    // The item went to the response that reads the conversation, not to both.
    responses.created('resp_next');
    expect(responses.takeDone('resp_next')[0]?.input.isEmpty).toBe(true);
  });

  it('times the response billed next from the first under way after a settlement, with its first token', () => {
    const { clock, responses } = clocked();
    clock.now = 2_000;
    responses.created('resp_a');
    clock.now = 2_500;
    responses.audioDelta('resp_a', 4_800);
    clock.now = 2_700;
    responses.textDelta('resp_a', 'later');
    expect(responses.timing).toEqual({ startedAt: 2_000, firstTokenAt: 2_500 });
    clock.now = 3_000;
    responses.settled();
    expect(responses.timing).toEqual({ startedAt: 3_000, firstTokenAt: undefined });
  });

  it('counts a delta of a response never created as that response, under way from then', () => {
    const { clock, responses } = clocked();
    clock.now = 5_000;
    responses.textDelta('resp_late', 'text');
    expect(responses.ids).toEqual(['resp_late']);
    expect(responses.timing.startedAt).toBe(5_000);
    expect(responses.all()).toHaveLength(2);
  });
});
