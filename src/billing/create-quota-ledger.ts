import type { DatabaseHandle } from '../storage/create-database.js';
import type { QuotaLedger } from './quota-ledger.js';
import { SqliteQuotaLedger } from './sqlite-quota-ledger.js';
import { StoredRoutineQuotaLedger } from './stored-routine-quota-ledger.js';

/**
 * The embedded SQLite database gets the synchronous ledger; PostgreSQL and MySQL the one that calls
 * stored routines (one round trip per batch of a turn's operations, and `onBatchFailed` hears why a batch
 * failed).
 */
export function createQuotaLedger(database: DatabaseHandle, owner: string, onBatchFailed?: (error: unknown) => void): QuotaLedger {
  if (database.sqliteConnection !== undefined) return new SqliteQuotaLedger(database.sqliteConnection, owner, database.sqliteGroupCommit);
  if (database.dialect === 'sqlite') throw new Error('the SQLite quota ledger needs the database connection of createDatabase');
  return new StoredRoutineQuotaLedger(database.db, database.dialect, owner, onBatchFailed);
}
