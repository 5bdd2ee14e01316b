import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { continuationIdsOf, recallContinuation, rememberAnswer, withContext } from './continued-response.js';
import { LocalResponseMemory } from './response-memory.js';

const memory = () => new LocalResponseMemory({ maxEntries: 100, ttlMs: 60_000, now: () => 0 });

describe('continuationIdsOf', () => {
  it('reads previous_response_id and a conversation given as an id or as { id }', () => {
    expect(continuationIdsOf({ previous_response_id: 'resp_1', conversation: 'conv_1' })).toEqual({ previousResponseId: 'resp_1', conversationId: 'conv_1', itemIds: [] });
    expect(continuationIdsOf({ conversation: { id: 'conv_2' } })).toEqual({ previousResponseId: undefined, conversationId: 'conv_2', itemIds: [] });
    expect(continuationIdsOf({ previous_response_id: '', conversation: 3 })).toEqual({ previousResponseId: undefined, conversationId: undefined, itemIds: [] });
  });

  it('reads the ids input items carry (item_reference or a passed-back item), each once, none too long to be remembered', () => {
    const input = [
      { role: 'user', content: 'hi' },
      { type: 'item_reference', id: 'msg_1' },
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{}' },
      { type: 'item_reference', id: 'msg_1' },
      { type: 'item_reference', id: 'x'.repeat(257) },
      'not an item',
    ];
    expect(continuationIdsOf({ input }).itemIds).toEqual(['msg_1', 'rs_1', 'fc_1']);
    expect(continuationIdsOf({ input: 'text' }).itemIds).toEqual([]);
  });
});

describe('recallContinuation', () => {
  it("answers the caller's own entry, the larger history when both ids are known, and nothing for unknown ids", async () => {
    const known = memory();
    known.remember('resp_1', { channelId: 1, userId: 7, contextTokens: 50 });
    known.remember('conv_1', { channelId: 2, userId: 7, contextTokens: 80 });
    expect(await recallContinuation(known, { previousResponseId: 'resp_1', conversationId: undefined, itemIds: [] }, 7, false)).toMatchObject({ channelId: 1 });
    expect(await recallContinuation(known, { previousResponseId: 'resp_1', conversationId: 'conv_1', itemIds: [] }, 7, false)).toMatchObject({ channelId: 2, contextTokens: 80 });
    expect(await recallContinuation(known, { previousResponseId: 'resp_x', conversationId: undefined, itemIds: [] }, 7, false)).toBeUndefined();
  });

  it("refuses another user's response or conversation as not found, naming the field", async () => {
    const known = memory();
    known.remember('resp_1', { channelId: 1, userId: 8, contextTokens: 50 });
    known.remember('conv_1', { channelId: 1, userId: 8, contextTokens: 50 });
    const refusal = (ids: Parameters<typeof recallContinuation>[1]) => recallContinuation(known, ids, 7, false).catch((error: unknown) => error as GatewayError);
    expect(await refusal({ previousResponseId: 'resp_1', conversationId: undefined, itemIds: [] })).toMatchObject({ status: 400, param: 'previous_response_id' });
    expect(await refusal({ previousResponseId: undefined, conversationId: 'conv_1', itemIds: [] })).toMatchObject({ status: 400, param: 'conversation' });
  });

  it('refuses a conversation it does not know as it refuses another user\'s (same words, param conversation), unless unknown conversations may be claimed (an over-long id either way)', async () => {
    const known = memory();
    known.remember('conv_theirs', { channelId: 1, userId: 8, contextTokens: 50 });
    known.remember('conv_mine', { channelId: 2, userId: 7, contextTokens: 60 });
    const refusal = (ids: Parameters<typeof recallContinuation>[1], allowUnknown: boolean) => recallContinuation(known, ids, 7, allowUnknown).catch((error: unknown) => error as GatewayError);
    const unknown = await refusal({ previousResponseId: undefined, conversationId: 'conv_guess', itemIds: [] }, false);
    expect(unknown).toBeInstanceOf(GatewayError);
    expect(unknown).toMatchObject({ status: 400, param: 'conversation', message: "Conversation with id 'conv_guess' not found." });
    expect(await refusal({ previousResponseId: undefined, conversationId: 'conv_theirs', itemIds: [] }, false)).toMatchObject({ status: 400, message: "Conversation with id 'conv_theirs' not found." });
    const tooLong = continuationIdsOf({ conversation: `conv_${'x'.repeat(300)}` });
    expect(tooLong.conversationId).toBeUndefined();
    expect(await refusal(tooLong, false)).toMatchObject({ status: 400, param: 'conversation' });
    expect(await refusal({ previousResponseId: undefined, conversationId: 'conv_mine', itemIds: [] }, false)).toMatchObject({ channelId: 2 });
    // Claimed: routed as a request without history; another user's is still refused.
    expect(await refusal({ previousResponseId: undefined, conversationId: 'conv_guess', itemIds: [] }, true)).toBeUndefined();
    // Too long to be remembered or claimed: refused even when unknown ids may be claimed.
    expect(await refusal(tooLong, true)).toMatchObject({ status: 400, param: 'conversation' });
    expect(await refusal({ previousResponseId: undefined, conversationId: 'conv_theirs', itemIds: [] }, true)).toMatchObject({ status: 400 });
  });

  it("refuses an input naming another user's stored item as not found (param input); the caller's own item routes and reserves", async () => {
    const known = memory();
    known.rememberEach(['msg_theirs', 'rs_theirs'], { channelId: 1, userId: 8, contextTokens: 500 });
    known.rememberEach(['msg_mine'], { channelId: 2, userId: 7, contextTokens: 300 });
    known.remember('resp_mine', { channelId: 2, userId: 7, contextTokens: 100 });
    const refused = await recallContinuation(known, { previousResponseId: undefined, conversationId: undefined, itemIds: ['msg_unknown', 'rs_theirs'] }, 7, false).catch((error: unknown) => error as GatewayError);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ status: 400, param: 'input', message: "Item with id 'rs_theirs' not found." });
    expect(await recallContinuation(known, { previousResponseId: undefined, conversationId: undefined, itemIds: ['msg_unknown'] }, 7, false)).toBeUndefined();
    expect(await recallContinuation(known, { previousResponseId: undefined, conversationId: undefined, itemIds: ['msg_unknown', 'msg_mine'] }, 7, false)).toMatchObject({ channelId: 2, contextTokens: 300 });
    expect(await recallContinuation(known, { previousResponseId: 'resp_mine', conversationId: undefined, itemIds: ['msg_mine'] }, 7, false)).toMatchObject({ contextTokens: 300 });
  });
});

describe('rememberAnswer', () => {
  it('remembers a stored answer (its channel and key) by its id and by its conversation; an unstored one by its conversation only', async () => {
    const known = memory();
    rememberAnswer(known, { previousResponseId: undefined, conversationId: 'conv_1', itemIds: [] }, false, { responseId: 'resp_1', channelId: 3, keyFingerprint: 'fp-a', userId: 7, contextTokens: 40 });
    expect(await known.recall('resp_1')).toBeUndefined();
    expect(await known.recall('conv_1')).toEqual({ channelId: 3, keyFingerprint: 'fp-a', userId: 7, contextTokens: 40 });
    rememberAnswer(known, { previousResponseId: undefined, conversationId: undefined, itemIds: [] }, true, { responseId: 'resp_2', channelId: 4, keyFingerprint: 'fp-b', userId: 7, contextTokens: 60 });
    expect(await known.recall('resp_2')).toEqual({ channelId: 4, keyFingerprint: 'fp-b', userId: 7, contextTokens: 60 });
  });
});

describe('withContext', () => {
  it('adds the history to both the estimate and the exact count', async () => {
    const prompt = withContext({ estimatedPromptTokens: 1010, countPromptTokens: () => Promise.resolve(1008), promptImageTokens: 1000 }, 100);
    expect(prompt.estimatedPromptTokens).toBe(1110);
    expect(await prompt.countPromptTokens()).toBe(1108);
    // The history's shares are unknown: only this turn's images are image input.
    expect(prompt.promptImageTokens).toBe(1000);
  });
});
