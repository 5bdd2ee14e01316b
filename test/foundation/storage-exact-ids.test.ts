/**
 * The tables keyed by a public id compare it exactly on every database (migration 022): on MySQL a
 * varchar compares by the database's case-blind collation, so a conversation claimed as `conv_AbC` was
 * refused to its claimant when another user held `conv_abc`, and a task's public id (`task_` + 32 of
 * [A-Za-z0-9]) answered in any case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationOwnersRepository } from '../../src/storage/conversation-owners-repository.js';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { runMigrations } from '../../src/storage/run-migrations.js';
import { TasksRepository } from '../../src/storage/tasks-repository.js';
import { allDialects, createTestDatabase, type TestDatabase } from '../support/test-databases.js';

const now = 1_717_000_000_000;

describe.each(allDialects)('ids differing only in case, on $dialect', ({ dialect, available }) => {
  let testDatabase: TestDatabase;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    if (!available) return;
    testDatabase = await createTestDatabase(dialect);
    handle = await createDatabase(testDatabase.url);
    await runMigrations(handle.db, handle.dialect);
  });
  afterAll(async () => {
    if (!available) return;
    await handle.close();
    await testDatabase.drop();
  });

  it.skipIf(!available)("are two conversations: each user's claim is written and each reads back its own", async () => {
    const owners = new ConversationOwnersRepository(handle.db, handle.dialect);
    const owner = { channelId: 3, keyFingerprint: 'fp', contextTokens: 0, createdAt: now };
    expect(await owners.insertIfAbsent({ conversationId: 'conv_CaseAbC', userId: 1, ...owner })).toBe(true);
    expect(await owners.insertIfAbsent({ conversationId: 'conv_caseabc', userId: 2, ...owner }), "the second user's claim").toBe(true);
    expect((await owners.find('conv_CaseAbC'))?.userId).toBe(1);
    expect((await owners.find('conv_caseabc'))?.userId).toBe(2);
    await owners.delete('conv_caseabc');
    expect((await owners.find('conv_CaseAbC'))?.userId, "deleting one leaves the other's").toBe(1);
  });

  it.skipIf(!available)('are two tasks, and a task is found by its own spelling alone', async () => {
    const tasks = new TasksRepository(handle.db, handle.dialect);
    const publicId = 'task_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
    const task = { kind: 'mj', requestId: 'req-1', tokenId: 1, model: 'midjourney', properties: {} };
    await tasks.insert({ ...task, publicId, userId: 1 }, now);
    expect(await tasks.findByPublicId(publicId.toLowerCase()), 'another spelling, no key asked').toBeUndefined();
    expect(await tasks.findForUser(publicId.toUpperCase(), 1)).toBeUndefined();
    await tasks.insert({ ...task, publicId: publicId.toLowerCase(), userId: 2 }, now);
    expect((await tasks.findByPublicId(publicId))?.user_id).toBe(1);
    expect((await tasks.findManyForUser([publicId.toLowerCase()], 1, 'mj')).length, "user 1 asking user 2's id").toBe(0);
  });
});
