import type { RecoveredReservation } from '../billing/quota-ledger.js';
import type { Database } from './database-schema.js';
import { requestIdFloor } from './delete-old-rows.js';

/**
 * The reservations `owner` made since `since` (unix ms) and settled at a charge, that no log row names:
 * their rows were waiting in the log writer when the process died (batched, up to 500 ms; longer while
 * the database refused them). Read off the primary key from the first id of `since` (request ids begin
 * with their time), each checked against the log's `request_id` index. Oldest first.
 */
export async function findUnloggedSettlements(db: Database, owner: string, since: number): Promise<RecoveredReservation[]> {
  const rows = await db
    .selectFrom('quota_reservations')
    .select(['id', 'token_id', 'user_id', 'owner', 'created_at', 'settled_amount'])
    .where('id', '>=', requestIdFloor(since))
    .where('owner', '=', owner)
    .where('state', '=', 'settled')
    .where('settled_amount', '>', 0)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('logs').select('logs.id').whereRef('logs.request_id', '=', 'quota_reservations.id'))))
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: row.id, tokenId: Number(row.token_id), userId: Number(row.user_id), owner: row.owner, createdAt: Number(row.created_at), charged: Number(row.settled_amount) }));
}
