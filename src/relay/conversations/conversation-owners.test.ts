import { describe, expect, it } from 'vitest';
import type { ConversationOwnerRow } from '../../storage/conversation-owners-repository.js';
import { LocalResponseMemory } from '../responses/response-memory.js';
import { ConversationOwners, type ConversationOwnerStore } from './conversation-owners.js';

/** A table in a Map that counts how often it is asked. */
function countingStore() {
  const rows = new Map<string, ConversationOwnerRow>();
  const calls = { record: 0, find: 0, delete: 0 };
  const store: ConversationOwnerStore = {
    record: async (row) => {
      calls.record += 1;
      if (!rows.has(row.conversation_id)) rows.set(row.conversation_id, row);
    },
    find: async (id) => {
      calls.find += 1;
      return rows.get(id);
    },
    delete: async (id) => {
      calls.delete += 1;
      rows.delete(id);
    },
  };
  return { rows, calls, store };
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
    expect(table.rows.get('conv_1')).toEqual({ conversation_id: 'conv_1', user_id: 7, channel_id: 3, key_fingerprint: 'f'.repeat(32), created_at: 1234 });
    expect(await owners.recall('conv_1')).toEqual({ ...owner, contextTokens: 40 });
    expect(table.calls.find).toBe(0);
  });

  it('reads the table when the memory has forgotten, and remembers the entry again (no history counted)', async () => {
    const { memory, table, owners } = setup();
    await owners.recordMade('conv_1', owner, 40);
    await memory.forget('conv_1');
    expect(await owners.recall('conv_1')).toEqual({ ...owner, contextTokens: 0 });
    expect(await owners.recall('conv_1')).toEqual({ ...owner, contextTokens: 0 });
    expect(table.calls.find).toBe(1);
    expect(await owners.recall('conv_unknown')).toBeUndefined();
  });

  it('a claim keeps the first maker; a forgotten conversation is gone from both', async () => {
    const { memory, table, owners } = setup();
    owners.recordClaimed('conv_2', owner);
    owners.recordClaimed('conv_2', { ...owner, userId: 8 });
    await Promise.resolve();
    expect(table.rows.get('conv_2')?.user_id).toBe(7);
    await owners.recordMade('conv_3', owner, 0);
    await owners.forget('conv_3');
    expect(table.rows.has('conv_3')).toBe(false);
    expect(await memory.recall('conv_3')).toBeUndefined();
    expect(await owners.recall('conv_3')).toBeUndefined();
  });

  it('a table that cannot be written is reported, and the memory still holds the conversation', async () => {
    const { memory, errors } = setup();
    const failing: ConversationOwnerStore = { record: () => Promise.reject(new Error('down')), find: async () => undefined, delete: async () => undefined };
    const owners = new ConversationOwners(memory, failing, { now: () => 0, onError: (error) => errors.push(error) });
    await owners.recordMade('conv_4', owner, 5);
    expect(errors).toHaveLength(1);
    expect(await owners.recall('conv_4')).toEqual({ ...owner, contextTokens: 5 });
  });
});
