import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database-schema.js';

/**
 * MySQL only: migration 017's `relay_settle_in_tx` read each wallet's `unlimited_quota` again after its
 * UPDATE, to record which wallets the charge left — also on the overage path, which had just read both
 * flags with `FOR UPDATE` (to cap the overage by the balances) and still holds those row locks, so the
 * flags cannot have changed: two point reads of rows it already had. The flags read there are kept; the
 * read after the UPDATE is left to the common path (a charge within its reservation reads no wallet
 * before its UPDATE, and MySQL's UPDATE returns no row). Same results, same locks, in the same order.
 * PostgreSQL (`UPDATE … RETURNING`) and SQLite (one claim statement) never re-read.
 */
export function mysqlSettleFlagsMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'mysql') return;
      await sql.raw('drop procedure if exists relay_settle_in_tx').execute(db);
      await sql.raw(mysqlSettleInTransaction).execute(db);
    },
  };
}

/** Migration 017's procedure, keeping the flags the overage path read under its row locks. */
const mysqlSettleInTransaction = mysqlSettleInTransactionFor(false);

/** With `channel` (migration 021): the settle records the channel it counts the charge on. */
export function mysqlSettleInTransactionFor(channel: boolean): string {
  return `
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
  declare v_token_unlimited int default null;
  declare v_user_unlimited int default null;
  declare continue handler for not found begin end;
  set p_charged = null;
  select amount, token_id, user_id into v_reserved, v_token_id, v_user_id from quota_reservations where id = p_id and state = 'reserved' for update;
  if v_reserved is not null then
    set p_charged = least(p_actual, v_reserved);
    if p_actual > v_reserved then
      set v_extra = p_actual - v_reserved;
      set v_unlimited = null;
      select unlimited_quota, remain_quota into v_unlimited, v_balance from tokens where id = v_token_id for update;
      set v_token_unlimited = v_unlimited;
      if v_unlimited is null then set v_extra = 0; elseif v_unlimited <> 1 then set v_extra = least(v_extra, greatest(v_balance, 0)); end if;
      set v_unlimited = null;
      select unlimited_quota, quota into v_unlimited, v_balance from users where id = v_user_id for update;
      set v_user_unlimited = v_unlimited;
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
    if v_token_unlimited is null then
      select unlimited_quota into v_token_unlimited from tokens where id = v_token_id;
    end if;
    update users
      set quota = case when unlimited_quota = 1 then quota else quota + v_change end,
          used_quota = used_quota + p_charged,
          request_count = request_count + 1
      where id = v_user_id and (v_change >= 0 or unlimited_quota = 1 or quota >= -v_change);
    set v_updated = row_count();
    if v_change < 0 and v_updated = 0 then
      signal sqlstate '45000' set message_text = 'the user balance changed while locked for settlement';
    end if;
    if v_user_unlimited is null then
      select unlimited_quota into v_user_unlimited from users where id = v_user_id;
    end if;
    if p_channel_id is not null then
      update channels set used_quota = used_quota + p_charged, request_count = request_count + 1 where id = p_channel_id;
    end if;
    update quota_reservations
      set state = 'settled', settled_at = p_now, settled_amount = p_charged,
          token_debited = case when v_token_unlimited <> 1 then 1 else 0 end,
          user_debited = case when v_user_unlimited <> 1 then 1 else 0 end${channel ? ',\n          channel_id = p_channel_id' : ''}
      where id = p_id;
  end if;
end`;
}
