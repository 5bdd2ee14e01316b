import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database-schema.js';
import { postgresBatchCalls, postgresBatchSignature } from './004-ledger-batch-routine.js';

/**
 * PostgreSQL only: `relay_ledger_batch` (migration 004) again, with the same arguments, answer, locks and
 * lock order — the open reservations it settles, then the tokens, the users and the channels, each by id —
 * but taken one row at a time by primary key. Migration 004's four locking statements matched arrays
 * (`id = any($1)`, with a union of subqueries for the wallets); PL/pgSQL planned them afresh at every call
 * (a custom plan beats the generic one, whose guess of the array's size is wrong), which cost more than
 * the settles and reserves of a small batch themselves: a batch of one settle and one reserve spent
 * 0.73–0.80 ms in the function's own statements, against 0.23 ms now (pg_stat_user_functions, BENCHMARKS.md
 * session 16). A lookup by primary key with a scalar keeps one generic plan.
 */
export function ledgerBatchRowLocksMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') await sql.raw(postgresBatch).execute(db);
    },
  };
}

/** The declarations and the locks, in their order; migration 021 keeps them. */
export const postgresBatchLocks = `
declare
  v_token_ids integer[] := p_reserve_token_ids;
  v_user_ids integer[] := p_reserve_user_ids;
  v_reservation record;
  v_settle_id varchar;
  v_id integer;
begin
  for v_settle_id in select distinct x from unnest(p_settle_ids) x order by 1 loop
    select token_id, user_id into v_reservation from quota_reservations where id = v_settle_id and state = 'reserved' for update;
    if found then
      v_token_ids := v_token_ids || v_reservation.token_id;
      v_user_ids := v_user_ids || v_reservation.user_id;
    end if;
  end loop;
  for v_id in select distinct x from unnest(v_token_ids) x order by 1 loop
    perform 1 from tokens where id = v_id for update;
  end loop;
  for v_id in select distinct x from unnest(v_user_ids) x order by 1 loop
    perform 1 from users where id = v_id for update;
  end loop;
  for v_id in select distinct x from unnest(p_settle_channel_ids) x where x is not null order by 1 loop
    perform 1 from channels where id = v_id for update;
  end loop;`;

const postgresBatch = `${postgresBatchSignature}${postgresBatchLocks}${postgresBatchCalls}`;
