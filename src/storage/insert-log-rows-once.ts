import type { Database } from './database-schema.js';
import { refundLogStyle, type LogRow } from './logs-repository.js';

/**
 * Writes log rows that waited in a log writer long enough that another node may have written them back
 * from their settlements meanwhile (recover-lost-log-rows.ts, insert-recovered-log-row.ts): each row is
 * left out when its reservation's row was claimed or its request has a row in the log already, and the
 * reservations of the rows written are claimed (`log_recovered_at` set from null) — all in one
 * transaction, so a recovery racing it writes each row once between them, and a write whose answer was
 * lost writes nothing twice when tried again. A row without a reservation (a request that reserved
 * nothing, or one whose settled reservation retention deleted a day on) is written unless its request
 * has a row. A task's refund row is not its request's row: it claims nothing, and is left out only
 * when the request has a refund row.
 *
 * Only rows that waited that long come here (log-writer.ts): a live node's rows are a plain INSERT.
 * PostgreSQL and MySQL only (`for update`); on SQLite the log writer's sink does the same in the group
 * commit (sqlite-log-rows.ts). The reservations are read `for update`, in id order: a racing claim's row
 * lock is waited for (then read as claimed), and a claim of ours is what a later recovery waits for.
 */
export async function insertLogRowsOnce(db: Database, rows: LogRow[], now: number): Promise<void> {
  if (rows.length === 0) return;
  const ids = [...new Set(rows.map((row) => row.request_id))];
  const requests = [...new Set(rows.filter((row) => row.style !== refundLogStyle).map((row) => row.request_id))];
  await db.transaction().execute(async (trx) => {
    /** Request ids whose row is written already (claimed, or in the log), and those whose refund row is. */
    const logged = new Set<string>();
    const refunded = new Set<string>();
    const unclaimed: string[] = [];
    if (requests.length > 0) {
      const reservations = await trx.selectFrom('quota_reservations').select(['id', 'log_recovered_at']).where('id', 'in', requests).orderBy('id').forUpdate().execute();
      for (const reservation of reservations) {
        if (reservation.log_recovered_at === null) unclaimed.push(reservation.id);
        else logged.add(reservation.id);
      }
    }
    for (const row of await trx.selectFrom('logs').select(['request_id', 'style']).where('request_id', 'in', ids).execute()) {
      (row.style === refundLogStyle ? refunded : logged).add(row.request_id);
    }
    const claims = unclaimed.filter((id) => !logged.has(id));
    if (claims.length > 0) await trx.updateTable('quota_reservations').set({ log_recovered_at: now }).where('id', 'in', claims).execute();
    // One row per request (and one refund row), within the batch too.
    const written = rows.filter((row) => {
      const seen = row.style === refundLogStyle ? refunded : logged;
      if (seen.has(row.request_id)) return false;
      seen.add(row.request_id);
      return true;
    });
    if (written.length > 0) await trx.insertInto('logs').values(written).execute();
  });
}
