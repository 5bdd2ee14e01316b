/**
 * Migration 025 on every database: the logs index on `user_id` becomes one on (`user_id`, `created_at`), so a
 * user's rows in a time range are read alone (on SQLite the planner used to read all of a user's rows and
 * filter them by time: 1 M rows of one user, 1.7 s for the last day's stat, blocking the gateway). A
 * database migrated from 024 ends with the indexes a new one has, six on `logs`; its rows are kept; one
 * user's rows list newest request first, the order the index holds. (Migration 026 widened that index in
 * turn: its own test, logs-user-covering-index.test.ts, has the plans; here the databases stop at 025.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/storage/create-database.js';
import { LogsRepository } from '../../src/storage/logs-repository.js';
import { runMigrations } from '../../src/storage/run-migrations.js';
import { listTableIndexes } from '../support/list-table-indexes.js';
import { logRow } from '../support/log-row.js';
import { allDialects, createTestDatabase, type TestDatabase } from '../support/test-databases.js';

const logsIndexes = {
  logs_channel_id: ['channel_id'],
  logs_created_at: ['created_at'],
  logs_model: ['model'],
  logs_request_id: ['request_id'],
  logs_token_id: ['token_id'],
  logs_user_id_created_at: ['user_id', 'created_at'],
};
const page = { page: 1, pageSize: 20 };
const base = 1_800_000_000_000;

describe.each(allDialects)('the logs index on (user_id, created_at), migration 025, on $dialect', ({ dialect, available }) => {
  const databases: TestDatabase[] = [];
  const handles: DatabaseHandle[] = [];
  let fresh: DatabaseHandle;
  let migrated: DatabaseHandle;
  let indexesAt024: Record<string, string[]>;
  let appliedFrom024: string[];

  const open = async () => {
    const database = await createTestDatabase(dialect);
    databases.push(database);
    const handle = await createDatabase(database.url);
    handles.push(handle);
    return handle;
  };

  beforeAll(async () => {
    if (!available) return;
    fresh = await open();
    await runMigrations(fresh.db, fresh.dialect, '025-logs-user-id-created-at');
    migrated = await open();
    expect(await runMigrations(migrated.db, migrated.dialect, '024-tasks-user-id')).toContain('024-tasks-user-id');
    // Rows written before the migration: user 1's at three times, one of user 2.
    await new LogsRepository(migrated.db).insertMany([
      logRow({ request_id: 'before-1', user_id: 1, created_at: base, quota: 1 }),
      logRow({ request_id: 'before-2', user_id: 1, created_at: base + 1_000, quota: 10 }),
      logRow({ request_id: 'before-3', user_id: 1, created_at: base + 2_000, quota: 100 }),
      logRow({ request_id: 'before-4', user_id: 2, created_at: base + 1_000, quota: 1_000 }),
    ]);
    indexesAt024 = await listTableIndexes(migrated.db, dialect, 'logs');
    appliedFrom024 = await runMigrations(migrated.db, migrated.dialect, '025-logs-user-id-created-at');
  });
  afterAll(async () => {
    for (const handle of handles) await handle.close();
    for (const database of databases) await database.drop();
  });

  it.skipIf(!available)('replaces logs_user_id on a database migrated from 024, which ends with the six indexes of a new one', async () => {
    expect(indexesAt024.logs_user_id).toEqual(['user_id']);
    expect(Object.keys(indexesAt024)).toHaveLength(6);
    expect(appliedFrom024).toEqual(['025-logs-user-id-created-at']);
    expect(await listTableIndexes(migrated.db, dialect, 'logs')).toEqual(logsIndexes);
    expect(await listTableIndexes(fresh.db, dialect, 'logs')).toEqual(logsIndexes);
  });

  it.skipIf(!available)("keeps the rows written before it: a user's list and totals in a time range find them", async () => {
    const logs = new LogsRepository(migrated.db);
    expect((await logs.listForUser(1, {}, page)).items.map((row) => row.request_id)).toEqual(['before-3', 'before-2', 'before-1']);
    expect(await logs.statForUser(1, { from: base + 1_000, to: base + 2_001 }, base + 2_000)).toEqual({ quota: 110, rpm: 3, tpm: 45 });
    expect((await logs.listForUser(2, { from: base, to: base + 1_001 }, page)).total).toBe(1);
  });

  it.skipIf(!available)("lists one user's rows newest request first, ties by row id; other admin lists by row id", async () => {
    const logs = new LogsRepository(fresh.db);
    // Written in this order (ids ascending), started in another: a long request's row lands after a later one's.
    await logs.insertMany([
      logRow({ request_id: 'started-third', user_id: 7, token_id: 70, created_at: base + 3_000 }),
      logRow({ request_id: 'started-first', user_id: 7, token_id: 70, created_at: base + 1_000 }),
      logRow({ request_id: 'started-second', user_id: 7, token_id: 70, created_at: base + 2_000 }),
      logRow({ request_id: 'started-second-too', user_id: 7, token_id: 70, created_at: base + 2_000 }),
    ]);
    const byStart = ['started-third', 'started-second-too', 'started-second', 'started-first'];
    expect((await logs.listForUser(7, {}, page)).items.map((row) => row.request_id)).toEqual(byStart);
    expect((await logs.list({ userId: 7 }, page)).items.map((row) => row.request_id)).toEqual(byStart);
    expect((await logs.list({ tokenId: 70 }, page)).items.map((row) => row.request_id)).toEqual(['started-second-too', 'started-second', 'started-first', 'started-third']);
    const second = await logs.listForUser(7, {}, { page: 2, pageSize: 2 });
    expect(second.items.map((row) => row.request_id)).toEqual(byStart.slice(2));
  });
});
