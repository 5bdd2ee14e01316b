import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConversationOwnerRecord } from '../../storage/conversation-owners-repository.js';
import { LocalResponseMemory } from '../responses/response-memory.js';
import { answerRetry, ConversationOwners, type ConversationOwnerStore } from './conversation-owners.js';

/** A table in a Map that counts how often it is asked (`holders`: the turns holding each claim, migration 023). */
function countingStore() {
  const rows = new Map<string, ConversationOwnerRecord>();
  const holders = new Map<string, number>();
  const calls = { insert: 0, find: 0, delete: 0, noteHistory: 0, answerClaim: 0 };
  const claimOf = (id: string, userId: number) => {
    const row = rows.get(id);
    return row !== undefined && row.userId === userId && row.channelId === 0 ? row : undefined;
  };
  const store: ConversationOwnerStore = {
    insertIfAbsent: async (row) => {
      calls.insert += 1;
      if (rows.has(row.conversationId)) return false;
      rows.set(row.conversationId, row);
      holders.set(row.conversationId, 1);
      return true;
    },
    find: async (id) => {
      calls.find += 1;
      return rows.get(id);
    },
    delete: async (id) => {
      calls.delete += 1;
      rows.delete(id);
    },
    answerClaim: async (id, userId, channelId, keyFingerprint) => {
      calls.answerClaim += 1;
      const row = claimOf(id, userId);
      if (row !== undefined) rows.set(id, { ...row, channelId, keyFingerprint });
    },
    joinClaim: async (id, userId) => {
      if (claimOf(id, userId) === undefined) return false;
      holders.set(id, (holders.get(id) ?? 0) + 1);
      return true;
    },
    releaseClaim: async (id, userId) => {
      if (claimOf(id, userId) === undefined) return;
      const left = (holders.get(id) ?? 0) - 1;
      holders.set(id, left);
      if (left <= 0) rows.delete(id);
    },
    noteHistory: async (id, contextTokens) => {
      calls.noteHistory += 1;
      const row = rows.get(id);
      if (row !== undefined && row.contextTokens < contextTokens) rows.set(id, { ...row, contextTokens });
    },
  };
  return { rows, holders, calls, store };
}

const setup = () => {
  const memory = new LocalResponseMemory({ maxEntries: 10, ttlMs: 60_000, now: () => 0 });
  const table = countingStore();
  const errors: unknown[] = [];
  const owners = new ConversationOwners(memory, table.store, { now: () => 1234, onError: (error) => errors.push(error) });
  return { memory, table, owners, errors };
};
const owner = { userId: 7, channelId: 3, keyFingerprint: 'f'.repeat(32) };

describe('ConversationOwners', () => {
  it('records a made conversation in the memory and the table; the memory answers without asking the table', async () => {
    const { table, owners } = setup();
    await owners.recordMade('conv_1', owner, 40);
    expect(table.rows.get('conv_1')).toEqual({ conversationId: 'conv_1', ...owner, contextTokens: 40, createdAt: 1234 });
    expect(await owners.recall('conv_1')).toEqual({ ...owner, contextTokens: 40, historyWritten: 40 });
    expect(table.calls.find).toBe(0);
  });

  it('reads the table when the memory has forgotten, and remembers the entry again with twice the history written', async () => {
    const { memory, table, owners } = setup();
    await owners.recordMade('conv_1', owner, 40);
    await memory.forget('conv_1');
    expect(await owners.recall('conv_1')).toEqual({ ...owner, contextTokens: 80, historyWritten: 40 });
    expect(await owners.recall('conv_1')).toEqual({ ...owner, contextTokens: 80, historyWritten: 40 });
    expect(table.calls.find).toBe(1);
    expect(await owners.recall('conv_unknown')).toBeUndefined();
  });

  it('writes the history only once it has more than doubled since the last write', async () => {
    const { table, owners } = setup();
    await owners.recordMade('conv_h', owner, 100);
    let written = 100;
    for (const counted of [150, 200, 201, 300, 402, 500, 900]) written = owners.noteHistory('conv_h', counted, written);
    await Promise.resolve();
    // 201 > 2×100 is written, then 500 > 2×201; 900 ≤ 2×500 is not: two writes for seven turns, and the
    // history counted never passes twice the one written.
    expect(table.calls.noteHistory).toBe(2);
    expect(written).toBe(500);
    expect(table.rows.get('conv_h')?.contextTokens).toBe(500);
  });

  it('a claim is won by one user; the same user may claim again, another is refused; an unanswered claim is released', async () => {
    const { table, owners } = setup();
    const claims = await Promise.all([owners.claim('conv_2', 7), owners.claim('conv_2', 8), owners.claim('conv_2', 7)]);
    expect(claims).toEqual([true, false, true]);
    expect(await owners.recall('conv_2')).toEqual({ userId: 7, channelId: 0, contextTokens: 0 });
    owners.answerClaim('conv_2', owner);
    await Promise.resolve();
    expect(table.rows.get('conv_2')).toMatchObject({ userId: 7, channelId: 3, keyFingerprint: owner.keyFingerprint });
    await owners.releaseClaim('conv_2', 7);
    expect(table.rows.has('conv_2')).toBe(true);

    expect(await owners.claim('conv_3', 8)).toBe(true);
    await owners.releaseClaim('conv_3', 8);
    expect(await owners.claim('conv_3', 9)).toBe(true);
  });

  it('two turns of one user hold its claim: the one released unanswered leaves the row to the other\'s answer; the last release deletes it', async () => {
    const { table, owners } = setup();
    // One turn claims, the next finds the claim its own (recall-and-claim-continuation.ts joins it).
    expect(await owners.claim('conv_6', 7)).toBe(true);
    expect(await owners.claim('conv_6', 7)).toBe(true);
    expect(table.holders.get('conv_6')).toBe(2);
    await owners.releaseClaim('conv_6', 7);
    expect(table.rows.get('conv_6'), 'the other turn still holds the claim').toMatchObject({ userId: 7, channelId: 0 });
    owners.answerClaim('conv_6', owner);
    await Promise.resolve();
    expect(table.rows.get('conv_6')).toMatchObject({ userId: 7, channelId: 3 });
    expect(await owners.claim('conv_6', 8)).toBe(false);

    // Neither answered: the second release is the last holder's.
    expect(await Promise.all([owners.claim('conv_7', 7), owners.claim('conv_7', 7)])).toEqual([true, true]);
    await owners.releaseClaim('conv_7', 7);
    expect(table.rows.has('conv_7')).toBe(true);
    await owners.releaseClaim('conv_7', 7);
    expect(table.rows.has('conv_7')).toBe(false);
    expect(await owners.claim('conv_7', 8)).toBe(true);
  });

  it('a claim released between another turn\'s insert and join is claimed again by that turn', async () => {
    const { table, owners } = setup();
    expect(await owners.claim('conv_8', 7)).toBe(true);
    const join = table.store.joinClaim;
    // The holder lets go just as the second turn's insert found its row.
    table.store.joinClaim = async (id, userId) => {
      await owners.releaseClaim(id, 7);
      return join(id, userId);
    };
    expect(await owners.claim('conv_8', 8)).toBe(true);
    expect(table.rows.get('conv_8')).toMatchObject({ userId: 8, channelId: 0 });
  });

  describe('a claim\'s answer whose write fails', () => {
    afterEach(() => vi.useRealTimers());

    it('is written again, at doubling intervals, until it goes through', async () => {
      vi.useFakeTimers();
      const { table, owners, errors } = setup();
      expect(await owners.claim('conv_9', 7)).toBe(true);
      const answer = table.store.answerClaim;
      let failures = 3;
      table.store.answerClaim = (...args) => (failures-- > 0 ? Promise.reject(new Error('blip')) : answer(...args));
      owners.answerClaim('conv_9', owner);
      await vi.advanceTimersByTimeAsync(answerRetry.firstDelayMs * (1 + 2) - 1);
      expect(table.rows.get('conv_9')?.channelId, 'two tries failed, the third not yet due').toBe(0);
      await vi.advanceTimersByTimeAsync(answerRetry.firstDelayMs * 4 + 1);
      expect(table.rows.get('conv_9')).toMatchObject({ userId: 7, channelId: 3, keyFingerprint: owner.keyFingerprint });
      expect(errors).toHaveLength(3);
      expect(table.calls.answerClaim).toBe(1);
      await vi.runAllTimersAsync();
      expect(table.calls.answerClaim, 'no try after it went through').toBe(1);
    });

    it('stops after its last try, and at shutdown gets one more try at once', async () => {
      vi.useFakeTimers();
      const { table, owners, errors } = setup();
      await owners.claim('conv_10', 7);
      await owners.claim('conv_11', 7);
      const answer = table.store.answerClaim;
      table.store.answerClaim = () => Promise.reject(new Error('down'));
      owners.answerClaim('conv_10', owner);
      await vi.runAllTimersAsync();
      expect(errors).toHaveLength(answerRetry.tries);

      owners.answerClaim('conv_11', owner);
      await vi.advanceTimersByTimeAsync(1);
      table.store.answerClaim = answer;
      await owners.close();
      expect(table.rows.get('conv_11')?.channelId).toBe(3);
      expect(vi.getTimerCount()).toBe(0);
    });
  });

  it('a forgotten conversation is gone from both', async () => {
    const { memory, table, owners } = setup();
    await owners.recordMade('conv_3', owner, 0);
    await owners.forget('conv_3');
    expect(table.rows.has('conv_3')).toBe(false);
    expect(await memory.recall('conv_3')).toBeUndefined();
    expect(await owners.recall('conv_3')).toBeUndefined();
  });

  it('a table that cannot be written is reported, and the memory still holds the conversation (a claim goes on)', async () => {
    const { memory, errors } = setup();
    const down = () => Promise.reject(new Error('down'));
    const failing: ConversationOwnerStore = { insertIfAbsent: down, find: async () => undefined, delete: async () => undefined, answerClaim: down, joinClaim: down, releaseClaim: down, noteHistory: down };
    const owners = new ConversationOwners(memory, failing, { now: () => 0, onError: (error) => errors.push(error) });
    await owners.recordMade('conv_4', owner, 5);
    expect(errors).toHaveLength(1);
    expect(await owners.recall('conv_4')).toEqual({ ...owner, contextTokens: 5, historyWritten: 5 });
    expect(await owners.claim('conv_5', 7)).toBe(true);
    expect(errors).toHaveLength(2);
  });
});
