import type { RecoveredReservation } from '../billing/quota-ledger.js';
import type { Database } from './database-schema.js';
import { requestIdFloor } from './delete-old-rows.js';
import { refundLogStyle } from './logs-repository.js';

/**
 * The reservations `owner` made since `since` (unix ms) and settled at a charge, that no log row names
 * (a task's refund row names its submit's request, and is not that request's row): their rows were
 * waiting in the log writer when the process died (batched, up to 500 ms; longer while the database
 * refused them). `settledBefore`: only those settled before it, for another node's run (recover-lost-log-rows.ts).
 * Read off the primary key from the first id of `since` (request ids begin with their time), each checked
 * against the log's `request_id` index. Oldest first.
 */
export async function findUnloggedSettlements(db: Database, owner: string, since: number, settledBefore?: number): Promise<RecoveredReservation[]> {
  let query = db
    .selectFrom('quota_reservations')
    .select(['id', 'token_id', 'user_id', 'owner', 'created_at', 'settled_amount', 'model', 'channel_id'])
    .where('id', '>=', requestIdFloor(since))
    .where('owner', '=', owner)
    .where('state', '=', 'settled')
    .where('settled_amount', '>', 0)
    .where('log_recovered_at', 'is', null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('logs')
            .select('logs.id')
            .whereRef('logs.request_id', '=', 'quota_reservations.id')
            .where('logs.style', '<>', refundLogStyle),
        ),
      ),
    );
  if (settledBefore !== undefined) query = query.where('settled_at', '<', settledBefore);
  const rows = await query.orderBy('id').execute();
  return rows.map((row) => ({
    id: row.id,
    tokenId: Number(row.token_id),
    userId: Number(row.user_id),
    owner: row.owner,
    createdAt: Number(row.created_at),
    charged: Number(row.settled_amount),
    model: row.model,
    channelId: row.channel_id === null ? null : Number(row.channel_id),
  }));
}
