import { describe, expect, it } from 'vitest';
import { defaultAudioBytesPerSecond, outputAudioTokensPerSecond } from './read-realtime-audio.js';
import { metadataKey, type ResponseRequest } from './read-response-request.js';
import type { ResponseCount } from './response-count.js';
import { ResponsesUnderWay } from './responses-under-way.js';

const request = (eventId: string, ownInputText?: string): ResponseRequest => ({ eventId, ownInputText, outOfBand: ownInputText !== undefined, metadata: metadataKey(null) ?? null });
/** What a `response.created` of an out-of-band response echoes (select-response-request.ts). */
const outOfBand = { conversationId: null, metadata: null };
/** What one of the default conversation with no metadata echoes: server VAD's, or a plain `response.create`'s. */
const inConversation = { conversationId: 'conv_1', metadata: null };

/** A clock the test moves. */
function clocked() {
  const clock = { now: 1_000 };
  return { clock, responses: new ResponsesUnderWay(() => clock.now) };
}

/** What a count holds, in characters (no tokenizer) and whole audio tokens. */
const seen = (count: ResponseCount | undefined) => ({ text: count?.text.charsSeen, input: count?.input.charsSeen, audioTokens: count?.audioTokens });
const nothing = { text: 0, input: 0, audioTokens: 0 };

describe('ResponsesUnderWay', () => {
  it('counts a response as under way from its request, cut only once created, and no longer once it is done', () => {
    const { responses } = clocked();
    expect(responses.any).toBe(false);
    responses.asked(request('evt_a'));
    expect(responses.any).toBe(true);
    expect(responses.ids).toEqual([undefined]);
    // Asked for, not created: nothing of it to bill at the session's end.
    expect(responses.cut).toBe(false);
    responses.created('resp_a');
    expect(responses.ids).toEqual(['resp_a']);
    expect(responses.cut).toBe(true);
    responses.takeDone('resp_a');
    expect(responses.any).toBe(false);
    expect(responses.cut).toBe(false);
  });

  it('drops a request the upstream refused, and only that one', () => {
    const { responses } = clocked();
    responses.asked(request('evt_a'));
    responses.asked(request('evt_b'));
    responses.refused('evt_other');
    expect(responses.ids).toEqual([undefined, undefined]);
    responses.refused('evt_a');
    expect(responses.ids).toEqual([undefined]);
    responses.refused('evt_b');
    expect(responses.any).toBe(false);
  });

  it('takes the request of a response done without its response.created off the waiting ones', () => {
    const { responses } = clocked();
    responses.asked(request('evt_a'));
    responses.takeDone('resp_never_created', inConversation);
    expect(responses.any).toBe(false);
    expect(responses.ids).toEqual([]);
  });

  it('names by undefined each response created without an id, and keeps each one\'s count apart', () => {
    const { responses } = clocked();
    responses.created(undefined);
    responses.created('resp_b');
    responses.itemAdded('item_1', 'hello');
    responses.created(undefined);
    expect(responses.ids).toEqual([undefined, 'resp_b', undefined]);
    responses.textDelta('resp_b', 'bbbb');
    // The first unnamed one is done: the one done naming no id is the oldest under way.
    expect(responses.takeDone(undefined).map(seen)).toEqual([nothing]);
    responses.created(undefined);
    // Three under way, the second unnamed one still with its input (not replaced by the third).
    expect(responses.ids).toEqual(['resp_b', undefined, undefined]);
    expect(responses.all().map(seen)).toEqual([{ ...nothing, text: 4 }, { ...nothing, input: 5 }, nothing, nothing]);
  });

  it("gives each response its own text, and the unattributed deltas to the last one done", () => {
    const { responses } = clocked();
    responses.created('resp_a');
    responses.created('resp_b');
    responses.textDelta('resp_a', 'alpha');
    responses.textDelta('resp_b', 'beta');
    responses.textDelta(undefined, 'nobody');
    expect(responses.takeDone('resp_b').map(seen)).toEqual([{ ...nothing, text: 4 }]);
    expect(responses.takeDone('resp_a').map(seen)).toEqual([{ ...nothing, text: 5 }, { ...nothing, text: 6 }]);
    // Handed out once: the next response starts with no unattributed text.
    responses.created('resp_c');
    expect(responses.takeDone('resp_c').map(seen)).toEqual([nothing, nothing]);
  });

  it('counts audio at the rate its response.created named, else the session\'s latest, else the default', () => {
    const { responses } = clocked();
    responses.created('resp_default');
    responses.audioDelta('resp_default', defaultAudioBytesPerSecond);
    expect(responses.takeDone('resp_default').map(seen)).toEqual([{ ...nothing, audioTokens: outputAudioTokensPerSecond }, nothing]);
    // A session of 8 kHz G.711 (8000 bytes a second), and a response that asks for 24 kHz PCM16 itself.
    responses.outputAudioRateSet(8_000);
    responses.created('resp_session');
    responses.created('resp_own', 48_000);
    responses.audioDelta('resp_session', 8_000);
    responses.audioDelta('resp_own', 24_000);
    expect(responses.takeDone('resp_own').map(seen)).toEqual([{ ...nothing, audioTokens: outputAudioTokensPerSecond / 2 }]);
    expect(responses.takeDone('resp_session').map(seen)).toEqual([{ ...nothing, audioTokens: outputAudioTokensPerSecond }, nothing]);
  });

  it("reads the conversation's new items into the next response, or the response's own input instead", () => {
    const { responses } = clocked();
    responses.itemAdded('item_1', 'hello there');
    responses.asked(request('evt_own', 'own input'));
    responses.created('resp_own', undefined, outOfBand);
    responses.created('resp_conv');
    expect(responses.takeDone('resp_own').map(seen)[0]).toEqual({ ...nothing, input: 'own input'.length });
    expect(responses.takeDone('resp_conv').map(seen)[0]).toEqual({ ...nothing, input: 'hello there'.length });
    // The item went to the response that reads the conversation, not to both, and to it alone.
    responses.created('resp_next');
    expect(responses.takeDone('resp_next').map(seen)[0]).toEqual(nothing);
  });

  it('leaves out of the next response\'s input an item deleted before it was created', () => {
    const { responses } = clocked();
    responses.itemAdded('item_kept', 'kept');
    responses.itemAdded('item_gone', 'deleted later');
    responses.itemDeleted('item_gone');
    responses.created('resp_a');
    expect(responses.takeDone('resp_a').map(seen)[0]).toEqual({ ...nothing, input: 'kept'.length });
  });

  it('times the response billed next from the first under way after a settlement, with its first token', () => {
    const { clock, responses } = clocked();
    clock.now = 2_000;
    responses.created('resp_a');
    clock.now = 2_200;
    // A second response while the first is under way: the time still runs from the first.
    responses.created('resp_b');
    clock.now = 2_500;
    responses.audioDelta('resp_a', 4_800);
    clock.now = 2_700;
    responses.textDelta('resp_b', 'later');
    expect(responses.timing).toEqual({ startedAt: 2_000, firstTokenAt: 2_500 });
    clock.now = 3_000;
    responses.settled();
    expect(responses.timing).toEqual({ startedAt: 3_000, firstTokenAt: undefined });
    clock.now = 3_100;
    responses.textDelta('resp_b', 'text first');
    clock.now = 3_200;
    responses.audioDelta('resp_b', 4_800);
    expect(responses.timing).toEqual({ startedAt: 3_000, firstTokenAt: 3_100 });
  });

  it('starts the time anew at the first response under way once none was', () => {
    const { clock, responses } = clocked();
    responses.created('resp_a');
    responses.takeDone('resp_a');
    clock.now = 4_000;
    responses.created('resp_b');
    expect(responses.timing.startedAt).toBe(4_000);
  });

  it('counts a delta of a response never created as that response, under way from then', () => {
    const { clock, responses } = clocked();
    clock.now = 5_000;
    responses.textDelta('resp_late', 'text');
    expect(responses.ids).toEqual(['resp_late']);
    expect(responses.timing.startedAt).toBe(5_000);
    clock.now = 5_500;
    // Another, while the first is under way: the time still runs from the first.
    responses.textDelta('resp_later', 'more');
    expect(responses.timing.startedAt).toBe(5_000);
    expect(responses.ids).toEqual(['resp_late', 'resp_later']);
    expect(responses.all().map(seen)).toEqual([{ ...nothing, text: 4 }, { ...nothing, text: 4 }, nothing]);
  });
});
