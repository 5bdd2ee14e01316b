import type { DatabaseHandle } from '../storage/create-database.js';
import type { QuotaLedger } from './quota-ledger.js';
import { SqlQuotaLedger } from './sql-quota-ledger.js';
import { SqliteQuotaLedger } from './sqlite-quota-ledger.js';

/** The embedded SQLite database gets the synchronous ledger; PostgreSQL and MySQL the pooled one. */
export function createQuotaLedger(database: DatabaseHandle, owner: string): QuotaLedger {
  return database.sqliteConnection === undefined ? new SqlQuotaLedger(database.db, database.dialect, owner) : new SqliteQuotaLedger(database.sqliteConnection, owner);
}
