import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database-schema.js';

/**
 * Which wallets a settled charge actually left: `token_debited` and `user_debited` (1 or 0) on the
 * reservation, written by its settle, and copied onto a task with its charge. A task's refund may come
 * long after its submit, and an admin may switch a wallet's `unlimited_quota` in between: refunding by the
 * flag at refund time minted the charge into a wallet that was unlimited when it was charged, and kept it
 * from one that paid it. The settle is the moment that decides: a wallet limited then ends the
 * reserve → settle cycle the charge poorer, an unlimited one no poorer (a switch while the reservation is
 * open moves its amount, balance-across-unlimited-switch.ts). NULL on rows settled before this migration:
 * their refunds keep following the flag at refund time.
 *
 * The settle routines change to record them (PostgreSQL: `relay_settle`, which the batch of migration 006
 * calls; MySQL: `relay_settle_in_tx`, which `relay_settle` and the batch of migration 005 call). Each reads
 * a wallet's flag after its own UPDATE of that wallet, under the row lock it holds to COMMIT, so the flag
 * is the one the UPDATE went by.
 */
export function walletsDebitedMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const table of ['quota_reservations', 'tasks']) {
        await db.schema.alterTable(table).addColumn('token_debited', 'integer').execute();
        await db.schema.alterTable(table).addColumn('user_debited', 'integer').execute();
      }
      const statements = dialect === 'postgres' ? [postgresSettle] : dialect === 'mysql' ? ['drop procedure if exists relay_settle_in_tx', mysqlSettleInTransaction] : [];
      for (const statement of statements) await sql.raw(statement).execute(db);
    },
  };
}

/** Migration 002's `relay_settle`, recording which wallets were limited when their balances were settled. */
const postgresSettle = postgresSettleFunction(false);

/** With `channel` (migration 021): the settle records the channel it counts the charge on. */
export function postgresSettleFunction(channel: boolean): string {
  return `
create or replace function relay_settle(p_id varchar, p_actual bigint, p_channel_id integer, p_now bigint)
returns bigint language plpgsql as $$
declare
  v_reserved bigint;
  v_token_id integer;
  v_user_id integer;
  v_unlimited integer;
  v_balance bigint;
  v_extra bigint;
  v_charged bigint;
  v_change bigint;
  v_token_unlimited integer;
  v_user_unlimited integer;
begin
  select amount, token_id, user_id into v_reserved, v_token_id, v_user_id from quota_reservations where id = p_id and state = 'reserved' for update;
  if not found then
    return null;
  end if;
  v_charged := least(p_actual, v_reserved);
  if p_actual > v_reserved then
    v_extra := p_actual - v_reserved;
    select unlimited_quota, remain_quota into v_unlimited, v_balance from tokens where id = v_token_id for update;
    if not found then v_extra := 0; elsif v_unlimited <> 1 then v_extra := least(v_extra, greatest(v_balance, 0)); end if;
    select unlimited_quota, quota into v_unlimited, v_balance from users where id = v_user_id for update;
    if not found then v_extra := 0; elsif v_unlimited <> 1 then v_extra := least(v_extra, greatest(v_balance, 0)); end if;
    v_charged := v_reserved + v_extra;
  end if;
  v_change := v_reserved - v_charged;
  update tokens
    set remain_quota = case when unlimited_quota = 1 then remain_quota else remain_quota + v_change end,
        used_quota = used_quota + v_charged,
        request_count = request_count + 1
    where id = v_token_id and (v_change >= 0 or unlimited_quota = 1 or remain_quota >= -v_change)
    returning unlimited_quota into v_token_unlimited;
  if v_change < 0 and not found then
    raise exception 'the token % balance changed while locked for settlement', v_token_id;
  end if;
  update users
    set quota = case when unlimited_quota = 1 then quota else quota + v_change end,
        used_quota = used_quota + v_charged,
        request_count = request_count + 1
    where id = v_user_id and (v_change >= 0 or unlimited_quota = 1 or quota >= -v_change)
    returning unlimited_quota into v_user_unlimited;
  if v_change < 0 and not found then
    raise exception 'the user % balance changed while locked for settlement', v_user_id;
  end if;
  if p_channel_id is not null then
    update channels set used_quota = used_quota + v_charged, request_count = request_count + 1 where id = p_channel_id;
  end if;
  update quota_reservations
    set state = 'settled', settled_at = p_now, settled_amount = v_charged,
        token_debited = case when v_token_unlimited <> 1 then 1 else 0 end,
        user_debited = case when v_user_unlimited <> 1 then 1 else 0 end${channel ? ',\n        channel_id = p_channel_id' : ''}
    where id = p_id;
  return v_charged;
end
$$`;
}

/**
 * Migration 005's `relay_settle_in_tx`, recording which wallets were limited when their balances were
 * settled (MySQL's UPDATE returns nothing: a point read after it, of the row it has locked).
 */
const mysqlSettleInTransaction = `
create procedure relay_settle_in_tx(in p_id varchar(64), in p_actual bigint, in p_channel_id int, in p_now bigint, out p_charged bigint)
begin
  declare v_reserved bigint default null;
  declare v_token_id int;
  declare v_user_id int;
  declare v_unlimited int;
  declare v_balance bigint;
  declare v_extra bigint;
  declare v_change bigint;
  declare v_updated int;
  declare v_token_unlimited int;
  declare v_user_unlimited int;
  declare continue handler for not found begin end;
  set p_charged = null;
  select amount, token_id, user_id into v_reserved, v_token_id, v_user_id from quota_reservations where id = p_id and state = 'reserved' for update;
  if v_reserved is not null then
    set p_charged = least(p_actual, v_reserved);
    if p_actual > v_reserved then
      set v_extra = p_actual - v_reserved;
      set v_unlimited = null;
      select unlimited_quota, remain_quota into v_unlimited, v_balance from tokens where id = v_token_id for update;
      if v_unlimited is null then set v_extra = 0; elseif v_unlimited <> 1 then set v_extra = least(v_extra, greatest(v_balance, 0)); end if;
      set v_unlimited = null;
      select unlimited_quota, quota into v_unlimited, v_balance from users where id = v_user_id for update;
      if v_unlimited is null then set v_extra = 0; elseif v_unlimited <> 1 then set v_extra = least(v_extra, greatest(v_balance, 0)); end if;
      set p_charged = v_reserved + v_extra;
    end if;
    set v_change = v_reserved - p_charged;
    update tokens
      set remain_quota = case when unlimited_quota = 1 then remain_quota else remain_quota + v_change end,
          used_quota = used_quota + p_charged,
          request_count = request_count + 1
      where id = v_token_id and (v_change >= 0 or unlimited_quota = 1 or remain_quota >= -v_change);
    set v_updated = row_count();
    if v_change < 0 and v_updated = 0 then
      signal sqlstate '45000' set message_text = 'the token balance changed while locked for settlement';
    end if;
    set v_token_unlimited = null;
    select unlimited_quota into v_token_unlimited from tokens where id = v_token_id;
    update users
      set quota = case when unlimited_quota = 1 then quota else quota + v_change end,
          used_quota = used_quota + p_charged,
          request_count = request_count + 1
      where id = v_user_id and (v_change >= 0 or unlimited_quota = 1 or quota >= -v_change);
    set v_updated = row_count();
    if v_change < 0 and v_updated = 0 then
      signal sqlstate '45000' set message_text = 'the user balance changed while locked for settlement';
    end if;
    set v_user_unlimited = null;
    select unlimited_quota into v_user_unlimited from users where id = v_user_id;
    if p_channel_id is not null then
      update channels set used_quota = used_quota + p_charged, request_count = request_count + 1 where id = p_channel_id;
    end if;
    update quota_reservations
      set state = 'settled', settled_at = p_now, settled_amount = p_charged,
          token_debited = case when v_token_unlimited <> 1 then 1 else 0 end,
          user_debited = case when v_user_unlimited <> 1 then 1 else 0 end
      where id = p_id;
  end if;
end`;
