import type { ExpressionBuilder } from 'kysely';
import type { Database, DatabaseSchema, DialectName } from './database-schema.js';

/** Rows deleted per statement: each is a short write transaction, and the loop yields between them. */
export const deleteBatchSize = 500;

/**
 * The smallest request id of millisecond `ms`: ids begin with their time as 12 hex digits
 * (generate-request-id.ts), so `id < floor` is "created before `ms`" read off the primary key. An id of
 * another shape (a test's, say) is never below a floor of hex digits it does not start with.
 */
export function requestIdFloor(ms: number): string {
  return Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
}

/**
 * Deletes the quota reservations settled before `before` (unix ms). Once settled, a reservation row only
 * answers a second settle of the same request (which then finds nothing to do either way); what it
 * charged is in the request log. Open reservations are never deleted: recovery settles them. Nor is one
 * whose task still needs it: a task whose charge was never recorded on its row (its process died between
 * the upstream's acceptance and that record, and recovery settled the reservation) is refunded, if it
 * fails, the reservation's settled amount — up to TASK_TIMEOUT_MINUTES (a day by default) or more later.
 * Such a reservation goes at the first sweep after its task succeeds or is refunded.
 */
export async function deleteSettledReservations(db: Database, dialect: DialectName, before: number, batchSize = deleteBatchSize): Promise<number> {
  const floor = requestIdFloor(before);
  const settledBefore = (eb: ExpressionBuilder<DatabaseSchema, 'quota_reservations'>) =>
    eb.and([
      eb('id', '<', floor),
      eb('state', '=', 'settled'),
      eb('settled_at', '<', before),
      eb.not(
        eb.exists(
          eb
            .selectFrom('tasks')
            .select('tasks.id')
            .whereRef('tasks.request_id', '=', 'quota_reservations.id')
            .where('tasks.quota', 'is', null)
            .where('tasks.refunded', '=', 0)
            .where('tasks.status', '<>', 'success'),
        ),
      ),
    ]);
  return deleteInBatches(async () => {
    // PostgreSQL has no DELETE … LIMIT: there the batch's keys come from a subquery on the primary key.
    // MySQL refuses a subquery on the table it deletes from; it and SQLite (built with
    // UPDATE_DELETE_LIMIT) take DELETE … LIMIT.
    const statement =
      dialect === 'postgres'
        ? db.deleteFrom('quota_reservations').where('id', 'in', db.selectFrom('quota_reservations').select('id').where(settledBefore).limit(batchSize))
        : db.deleteFrom('quota_reservations').where(settledBefore).limit(batchSize);
    return (await statement.executeTakeFirst()).numDeletedRows;
  }, batchSize);
}

/** Deletes the request log's rows created before `before` (unix ms). */
export async function deleteLogsBefore(db: Database, dialect: DialectName, before: number, batchSize = deleteBatchSize): Promise<number> {
  return deleteInBatches(async () => {
    // As above: a subquery of keys on PostgreSQL, DELETE … LIMIT elsewhere.
    const statement =
      dialect === 'postgres'
        ? db.deleteFrom('logs').where('id', 'in', db.selectFrom('logs').select('id').where('created_at', '<', before).limit(batchSize))
        : db.deleteFrom('logs').where('created_at', '<', before).limit(batchSize);
    return (await statement.executeTakeFirst()).numDeletedRows;
  }, batchSize);
}

/** Runs `deleteBatch` until a batch comes back short, yielding to the event loop between batches. */
async function deleteInBatches(deleteBatch: () => Promise<bigint>, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = Number(await deleteBatch());
    total += deleted;
    if (deleted < batchSize) return total;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
