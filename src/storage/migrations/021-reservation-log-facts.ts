import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database-schema.js';
import { postgresReserveFunction } from './002-ledger-routines.js';
import { postgresBatchCallsFor, postgresBatchSignatureFor } from './004-ledger-batch-routine.js';
import { mysqlBatch, mysqlParseError, mysqlReserve, mysqlReserveInTransaction } from './005-mysql-ledger-batch.js';
import { postgresBatchLocks } from './006-ledger-batch-row-locks.js';
import { postgresSettleFunction } from './017-wallets-debited.js';
import { mysqlSettleInTransactionFor } from './018-mysql-settle-flags.js';

/**
 * What a reservation row keeps so that a log row written back from it after a crash says what the
 * request was for (docs/behaviour.md "Log rows"): `model` (written by the reserve's INSERT) and
 * `channel_id` (by the settle's UPDATE of the row, which it made anyway), both nullable: null on rows
 * made before this migration, on a reservation left open by a crash (no settle), and on a settle no
 * channel served. And `log_recovered_at`, the claim of the start-up that wrote a lost row back: two
 * instances recovering at once (a restart of the node, another node's start) cannot both write one.
 *
 * The routines change to record them, keeping the calls of the version before working (replicas not yet
 * restarted during an upgrade): PostgreSQL's `relay_reserve` and `relay_ledger_batch` take the model(s) as
 * a last optional argument (the old ones dropped first, or a call with the old arguments would match two);
 * MySQL procedures have no optional arguments, so `relay_reserve` keeps its six (no model) and
 * `relay_reserve_model` takes seven, and a reserve's row in the batch's JSON may carry its model fifth.
 * The settles keep their arguments: they already had the channel.
 */
export function reservationLogFactsMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('quota_reservations').addColumn('model', 'varchar(191)').execute();
      await db.schema.alterTable('quota_reservations').addColumn('channel_id', 'integer').execute();
      await db.schema.alterTable('quota_reservations').addColumn('log_recovered_at', 'bigint').execute();
      if (dialect === 'postgres') {
        for (const statement of postgresRoutines) await sql.raw(statement).execute(db);
      }
      if (dialect === 'mysql') {
        for (const statement of mysqlRoutines) await sql.raw(statement).execute(db);
        try {
          await sql.raw(mysqlBatch(true)).execute(db);
        } catch (error) {
          // As in migration 005: a server without JSON_TABLE has no batch, and the ledger calls one by one.
          if ((error as { errno?: unknown }).errno !== mysqlParseError) throw error;
        }
      }
    },
  };
}

const postgresRoutines = [
  'drop function if exists relay_reserve(varchar, integer, integer, bigint, varchar, bigint)',
  postgresReserveFunction(true),
  'drop function if exists relay_ledger_batch(varchar[], integer[], integer[], bigint[], varchar[], bigint[], integer[], varchar, bigint)',
  `${postgresBatchSignatureFor(true)}${postgresBatchLocks}${postgresBatchCallsFor(true)}`,
  postgresSettleFunction(true),
];

const mysqlRoutines = [
  'drop procedure if exists relay_reserve_in_tx',
  mysqlReserveInTransaction(true),
  'drop procedure if exists relay_reserve',
  mysqlReserve('relay_reserve', 'null'),
  'drop procedure if exists relay_reserve_model',
  mysqlReserve('relay_reserve_model', 'parameter'),
  'drop procedure if exists relay_settle_in_tx',
  mysqlSettleInTransactionFor(true),
  'drop procedure if exists relay_ledger_batch',
];
