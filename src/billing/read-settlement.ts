import type { Database } from '../storage/database-schema.js';
import type { FoundSettlement } from './settle-retry-queue.js';

/**
 * What a settled reservation moved (`settled_amount`), and whether crash recovery (start-up or the 24-hour
 * sweep) wrote its log row (`style = 'recovery'`, main.ts): for a settle made again that found the
 * reservation settled already. Undefined when the reservation is not there or not settled.
 */
export async function readSettlement(db: Database, reservationId: string): Promise<FoundSettlement | undefined> {
  const reservation = await db.selectFrom('quota_reservations').select('settled_amount').where('id', '=', reservationId).where('state', '=', 'settled').executeTakeFirst();
  if (reservation === undefined || reservation.settled_amount === null) return undefined;
  // logs.request_id is indexed (migration 001).
  const recoveryRow = await db.selectFrom('logs').select('id').where('request_id', '=', reservationId).where('style', '=', 'recovery').limit(1).executeTakeFirst();
  return { charged: Number(reservation.settled_amount), loggedByRecovery: recoveryRow !== undefined };
}
