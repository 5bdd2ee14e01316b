import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database-schema.js';

/**
 * PostgreSQL only (MySQL's is migration 005): `relay_ledger_batch`, the settles and reserves that one gateway process gathered in
 * an event-loop turn, run in one transaction — one round trip and one commit (one WAL flush) for all of
 * them instead of one each. With every request of a token and its user updating the same two rows, each
 * transaction holds those rows' locks through its commit's flush, so one commit per request capped a
 * process at a few hundred requests/s whatever the connection count (BENCHMARKS.md, session 10).
 *
 * Every item keeps its own rules and outcome: the loop calls migration 002's `relay_settle` and
 * `relay_reserve` for each, in the transaction the batch opened (a refusal is an answer, not an error,
 * so one short wallet does not undo the others). Settles run first, so quota they hand back is there for
 * the reserves of the same batch.
 *
 * No deadlocks between processes: before the loop, the batch locks every row it will touch in one global
 * order — the open reservations it settles, then the tokens, then the users, then the channels, each by
 * id — the order in which the single calls take them (settle: reservation, token, user, channel;
 * reserve: token, user). A batch therefore never waits for a row while holding one that comes later in
 * that order.
 *
 * The answer is two arrays, in the order of the arguments: each reserve's outcome ('ok', 'token',
 * 'user') and each settle's charge (null when the reservation was not open).
 */
export function ledgerBatchRoutineMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') await sql.raw(postgresBatch).execute(db);
    },
  };
}

/** The batch routine's signature, migration 006's too: it replaces the body only. */
export const postgresBatchSignature = postgresBatchSignatureFor(false);

/** With `model` (migration 021): the reserves' models too, one array, last and optional. */
export function postgresBatchSignatureFor(model: boolean): string {
  return `
create or replace function relay_ledger_batch(
  p_reserve_ids varchar[], p_reserve_token_ids integer[], p_reserve_user_ids integer[], p_reserve_amounts bigint[],
  p_settle_ids varchar[], p_settle_actuals bigint[], p_settle_channel_ids integer[],
  p_owner varchar, p_now bigint${model ? ',\n  p_reserve_models varchar[] default null' : ''},
  out reserve_outcomes text[], out settle_charges bigint[])
language plpgsql as $$`;
}

/** After the locks: the settles, then the reserves, each through its single routine, answers in order. */
export const postgresBatchCalls = postgresBatchCallsFor(false);

/** With `model` (migration 021): each reserve passes its model (null when the array is, or is short). */
export function postgresBatchCallsFor(model: boolean): string {
  return `
  settle_charges := '{}';
  for i in 1 .. coalesce(array_length(p_settle_ids, 1), 0) loop
    settle_charges := settle_charges || relay_settle(p_settle_ids[i], p_settle_actuals[i], p_settle_channel_ids[i], p_now);
  end loop;
  reserve_outcomes := '{}';
  for i in 1 .. coalesce(array_length(p_reserve_ids, 1), 0) loop
    reserve_outcomes := reserve_outcomes || relay_reserve(p_reserve_ids[i], p_reserve_token_ids[i], p_reserve_user_ids[i], p_reserve_amounts[i], p_owner, p_now${model ? ', p_reserve_models[i]' : ''});
  end loop;
end
$$`;
}

const postgresBatch = `${postgresBatchSignature}
begin
  perform 1 from quota_reservations where id = any(p_settle_ids) and state = 'reserved' order by id for update;
  perform 1 from tokens
    where id in (select unnest(p_reserve_token_ids) union select token_id from quota_reservations where id = any(p_settle_ids) and state = 'reserved')
    order by id for update;
  perform 1 from users
    where id in (select unnest(p_reserve_user_ids) union select user_id from quota_reservations where id = any(p_settle_ids) and state = 'reserved')
    order by id for update;
  perform 1 from channels where id = any(p_settle_channel_ids) order by id for update;${postgresBatchCalls}`;
