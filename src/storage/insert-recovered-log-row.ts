import type { Database } from './database-schema.js';
import type { LogRow } from './logs-repository.js';

/**
 * Writes the log row recovery made for reservation `reservationId` (`row`), unless another recovery
 * wrote one: the reservation's `log_recovered_at` is claimed (null → `now`) and the row inserted in one
 * transaction, so two instances recovering the same settlement at once (a node's restart and another
 * node's sweep) write one row between them, and a claim is never left without its row. The claim's
 * UPDATE waits for a racing claim's commit (its row lock; SQLite: its write lock), then finds it taken.
 * Answers whether this call wrote the row.
 */
export async function insertRecoveredLogRow(db: Database, reservationId: string, row: LogRow, now: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const claimed = await trx.updateTable('quota_reservations').set({ log_recovered_at: now }).where('id', '=', reservationId).where('log_recovered_at', 'is', null).executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return false;
    await trx.insertInto('logs').values(row).execute();
    return true;
  });
}
