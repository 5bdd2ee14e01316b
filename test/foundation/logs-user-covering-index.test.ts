/**
 * Migration 026 on every database: the logs index (`user_id`, `created_at`) becomes (`user_id`,
 * `created_at`, `id`, `token_id`, `model`, `quota`), so a user's own log is counted and summed from the
 * index alone — the all-time stat, and the count and stat of a list filtered by token or model, which read
 * every row of the user (a full scan on MariaDB: 3.3–7.5 s for 1 M rows of one user in 2 M; BENCHMARKS.md,
 * session 38). A database migrated from 025 ends with the indexes a new one has, still six on `logs`; its
 * rows are kept; on SQLite the plans read the index alone, and a page in its order without sorting.
 */
import { Kysely, SqliteDialect } from 'kysely';
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
  logs_user_covering: ['user_id', 'created_at', 'id', 'token_id', 'model', 'quota'],
};
const page = { page: 1, pageSize: 20 };
const base = 1_800_000_000_000;

describe.each(allDialects)('the covering logs index of a user, migration 026, on $dialect', ({ dialect, available }) => {
  const databases: TestDatabase[] = [];
  const handles: DatabaseHandle[] = [];
  let fresh: DatabaseHandle;
  let migrated: DatabaseHandle;
  let appliedFrom025: string[];

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
    await runMigrations(fresh.db, fresh.dialect);
    migrated = await open();
    expect(await runMigrations(migrated.db, migrated.dialect, '025-logs-user-id-created-at')).toContain('025-logs-user-id-created-at');
    // Rows written before the migration: user 1's on two tokens and two models, a refund among them; one of user 2.
    await new LogsRepository(migrated.db).insertMany([
      logRow({ request_id: 'before-1', user_id: 1, token_id: 11, model: 'gpt-4o', created_at: base, quota: 1 }),
      logRow({ request_id: 'before-2', user_id: 1, token_id: 12, model: 'o3', created_at: base + 1_000, quota: 10 }),
      logRow({ request_id: 'before-3', user_id: 1, token_id: 11, model: 'o3', created_at: base + 2_000, quota: 100 }),
      logRow({ request_id: 'before-4', user_id: 1, token_id: 11, model: 'o3', created_at: base + 2_000, quota: -100, style: 'task-refund' }),
      logRow({ request_id: 'before-5', user_id: 2, token_id: 21, model: 'o3', created_at: base + 1_000, quota: 1_000 }),
    ]);
    appliedFrom025 = await runMigrations(migrated.db, migrated.dialect);
  });
  afterAll(async () => {
    for (const handle of handles) await handle.close();
    for (const database of databases) await database.drop();
  });

  it.skipIf(!available)('replaces logs_user_id_created_at on a database migrated from 025, which ends with the six indexes of a new one', async () => {
    expect(appliedFrom025).toEqual(['026-logs-user-covering']);
    expect(await listTableIndexes(migrated.db, dialect, 'logs')).toEqual(logsIndexes);
    expect(await listTableIndexes(fresh.db, dialect, 'logs')).toEqual(logsIndexes);
  });

  it.skipIf(!available)("keeps the rows written before it: a user's totals and lists, filtered by token or model, find them", async () => {
    const logs = new LogsRepository(migrated.db);
    const now = base + 3_000;
    expect(await logs.statForUser(1, {}, now)).toEqual({ quota: 11, rpm: 3, tpm: 60 });
    expect(await logs.statForUser(1, { tokenId: 11 }, now)).toEqual({ quota: 1, rpm: 2, tpm: 45 });
    expect(await logs.statForUser(1, { model: 'o3' }, now)).toEqual({ quota: 10, rpm: 2, tpm: 45 });
    const byToken = await logs.listForUser(1, { tokenId: 11 }, page);
    expect([byToken.total, byToken.items.map((row) => row.request_id)]).toEqual([3, ['before-4', 'before-3', 'before-1']]);
    const byModel = await logs.listForUser(1, { model: 'o3' }, page);
    expect([byModel.total, byModel.items.map((row) => row.request_id)]).toEqual([3, ['before-4', 'before-3', 'before-2']]);
    expect((await logs.listForUser(1, { tokenId: 21 }, page)).total).toBe(0);
    expect(await logs.statForUser(2, { from: base, to: base + 1_001 }, now)).toEqual({ quota: 1_000, rpm: 1, tpm: 15 });
  });

  it.skipIf(!available)("lists one user's rows newest request first, ties by row id, whatever their tokens and quotas", async () => {
    const logs = new LogsRepository(fresh.db);
    // Written in this order (ids ascending), started in another; the tied pair in the reverse order of the
    // index's later columns (token, quota), which must not decide the order.
    await logs.insertMany([
      logRow({ request_id: 'started-third', user_id: 7, token_id: 70, created_at: base + 3_000 }),
      logRow({ request_id: 'started-first', user_id: 7, token_id: 70, created_at: base + 1_000 }),
      logRow({ request_id: 'started-second', user_id: 7, token_id: 72, quota: 200, created_at: base + 2_000 }),
      logRow({ request_id: 'started-second-too', user_id: 7, token_id: 71, quota: 100, created_at: base + 2_000 }),
    ]);
    const byStart = ['started-third', 'started-second-too', 'started-second', 'started-first'];
    expect((await logs.listForUser(7, {}, page)).items.map((row) => row.request_id)).toEqual(byStart);
    expect((await logs.list({ userId: 7 }, page)).items.map((row) => row.request_id)).toEqual(byStart);
    expect((await logs.listForUser(7, {}, { page: 2, pageSize: 2 })).items.map((row) => row.request_id)).toEqual(byStart.slice(2));
  });
});

describe("SQLite's plans of one user's log queries", () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    handle = await createDatabase(database.url);
    await runMigrations(handle.db, handle.dialect);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  /** The plan of each statement on `logs` that `run` makes, its steps joined. */
  const plansOf = async (run: (logs: LogsRepository) => Promise<unknown>) => {
    const statements: { sql: string; parameters: readonly unknown[] }[] = [];
    const connection = handle.sqliteConnection;
    if (connection === undefined) throw new Error('a SQLite handle has its connection');
    const logged = new Kysely<never>({ dialect: new SqliteDialect({ database: connection }), log: (event) => void statements.push(event.query) });
    await run(new LogsRepository(logged as never));
    return statements
      .filter((statement) => / from "logs"/.test(statement.sql))
      .map((statement) => (connection.prepare(`explain query plan ${statement.sql}`).all(...statement.parameters) as { detail: string }[]).map((step) => step.detail).join(' | '));
  };

  it('reads a time-bounded own log through both columns, and a page in index order without sorting', async () => {
    const bothColumns = /USING (COVERING )?INDEX logs_user_covering \(user_id=\? AND created_at>\? AND created_at<\?\)/;
    const range = { from: base, to: base + 86_400_000 };
    const timed = [...(await plansOf((logs) => logs.statForUser(7, range, base))), ...(await plansOf((logs) => logs.listForUser(7, range, page)))];
    expect(timed).toHaveLength(4);
    for (const plan of timed) expect(plan).toMatch(bothColumns);
    for (const plan of [...(await plansOf((logs) => logs.listForUser(7, {}, page))), ...(await plansOf((logs) => logs.list({ userId: 7 }, page)))]) {
      expect(plan).toMatch(/INDEX logs_user_covering \(user_id=\?\)/);
      expect(plan).not.toContain('TEMP B-TREE');
    }
  });

  it("sums the all-time stat and counts a list filtered by token or model from the index's entries alone", async () => {
    const [allTime] = await plansOf((logs) => logs.statForUser(7, {}, base));
    const [byToken] = await plansOf((logs) => logs.statForUser(7, { tokenId: 70 }, base));
    const [byModel] = await plansOf((logs) => logs.statForUser(7, { model: 'o3' }, base));
    const [, tokenCount] = await plansOf((logs) => logs.listForUser(7, { tokenId: 70 }, page));
    const [, modelCount] = await plansOf((logs) => logs.listForUser(7, { model: 'o3' }, page));
    for (const plan of [allTime, byToken, byModel, tokenCount, modelCount]) expect(plan).toBe('SEARCH logs USING COVERING INDEX logs_user_covering (user_id=?)');
  });
});
