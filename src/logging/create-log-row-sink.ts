import type { DatabaseHandle } from '../storage/create-database.js';
import { insertLogRowsOnce } from '../storage/insert-log-rows-once.js';
import { LogsRepository } from '../storage/logs-repository.js';
import type { LogRowSink } from './log-writer.js';
import { sqliteLogRowSink } from './sqlite-log-rows.js';

/**
 * Where the log writer's batches go on `database`: on SQLite the group commit (sqlite-log-rows.ts, which
 * says whether it is, for the writer's per-turn flush); elsewhere one INSERT per batch, and rows held so
 * long that another node may have written them back go through their reservations' claims
 * (insert-log-rows-once.ts).
 */
export function createLogRowSink(database: DatabaseHandle): { sink: LogRowSink; groupCommitted: boolean } {
  if (database.sqliteConnection !== undefined && database.sqliteGroupCommit !== undefined) {
    return { sink: sqliteLogRowSink(database.sqliteConnection, database.sqliteGroupCommit), groupCommitted: true };
  }
  const logs = new LogsRepository(database.db);
  return { sink: { insertMany: (rows) => logs.insertMany(rows), insertManyOnce: (rows, now) => insertLogRowsOnce(database.db, rows, now) }, groupCommitted: false };
}
