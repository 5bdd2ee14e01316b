/**
 * What the Realtime suites read back from a test gateway's database after a session: the user's spend, the
 * holds still open, and the Realtime log rows written since a point.
 */
import type { TestGateway } from '../support/start-test-gateway.js';

export function realtimeLedgerReads(gateway: () => TestGateway) {
  const db = () => gateway().gateway.services.database.db;
  return {
    db,
    /** The user `u`'s used quota, once every session in flight has settled. */
    async used(): Promise<number> {
      await gateway().settled();
      const row = await db().selectFrom('users').select('used_quota').where('username', '=', 'u').executeTakeFirstOrThrow();
      return Number(row.used_quota);
    },
    /** How many holds are still open. */
    async held(): Promise<number> {
      const rows = await db().selectFrom('quota_reservations').select('id').where('state', '=', 'reserved').execute();
      return rows.length;
    },
    async lastLogId(): Promise<number> {
      const row = await db().selectFrom('logs').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
      return row === undefined ? 0 : Number(row.id);
    },
    /** The Realtime log rows after `id`, once every session in flight has settled. */
    async logsSince(id: number) {
      await gateway().settled();
      return db().selectFrom('logs').selectAll().where('style', '=', 'openai-realtime').where('id', '>', id).orderBy('id').execute();
    },
  };
}
